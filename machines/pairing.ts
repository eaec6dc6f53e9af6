import { assign, setup, type SnapshotFrom } from 'xstate';

/**
 * RFID pairing mode (spec 3, 4.5). Enabled only while the charge point is idle; lasts 60 s or until one tag is read.
 * The tag read is kept in the actor's memory only (gone after a restart), until pairing is enabled again; it is never
 * added to the whitelist and authorizes nothing (the tag router sends tags here instead of to the charge cycle while
 * pairing is on). Feedback: two beeps for a tag already whitelisted, one for a new tag.
 */

export const PAIRING_DURATION_MS = 60_000;

export type PairedTagType = 'RFID' | 'NFC' | 'EVCCID';

export interface PairedTag {
  id: string;
  tagType: PairedTagType;
}

export interface PairingContext {
  tag: PairedTag | null;
  /** Outcome of the latest ENABLE, read by the sender right after sending it. */
  lastEnable: 'enabled' | 'refused' | null;
}

export type PairingEvent = { type: 'ENABLE'; chargePointIdle: boolean } | { type: 'TAG'; id: string; tagType: PairedTagType; known: boolean };

export const pairingMachine = setup({
  // Stryker disable next-line ObjectLiteral: `types` only carries TypeScript types; XState ignores it at run time.
  types: { context: {} as PairingContext, events: {} as PairingEvent },
  actions: {
    /** Buzzer feedback: `count` beeps. */
    beep: (_, _params: { count: number }) => {},
    clearTag: assign({ tag: null }),
    storeTag: assign({ tag: ({ event }) => (event.type === 'TAG' ? { id: event.id, tagType: event.tagType } : null) }),
    enabled: assign({ lastEnable: 'enabled' as const }),
    refused: assign({ lastEnable: 'refused' as const }),
  },
  guards: {
    chargePointIdle: ({ event }) => event.type === 'ENABLE' && event.chargePointIdle,
  },
  delays: { pairingDuration: PAIRING_DURATION_MS },
}).createMachine({
  id: 'pairing',
  context: { tag: null, lastEnable: null },
  // Enabling (re)starts pairing from either state (the 60 s start again); refused unless the charge point is idle.
  on: {
    ENABLE: [{ guard: 'chargePointIdle', target: '.on', actions: ['clearTag', 'enabled'] }, { actions: 'refused' }],
  },
  initial: 'off',
  states: {
    off: {},
    on: {
      after: { pairingDuration: 'off' },
      on: {
        TAG: {
          target: 'off',
          actions: ['storeTag', { type: 'beep', params: ({ event }) => ({ count: event.known ? 2 : 1 }) }],
        },
      },
    },
  },
});

export type PairingSnapshot = SnapshotFrom<typeof pairingMachine>;
