import type { Fetch } from '../fetch.js';
import { createNfcRequestHandler, outstandingRefusal } from './mapping.js';
import type { NfcTarget, RfidMode, Unsubscribe } from '../../drivers/types.js';
import type { NfcLinkActor } from '../../machines/main-thread.js';
import { MAX_NDEF_MESSAGE } from '../../machines/type4-tag.js';
import type { EventLog } from '../events.js';
import type { Logger } from '../logger.js';

/** The client address of the NFC link: sessions created over NFC are bound to it (spec 7.2 code 1005). */
export const NFC_CLIENT_ADDRESS = 'nfc';

export interface NfcDeps {
  /** The reader's NFC face; undefined when the hardware has none (then NFC is off and `setRfidMode` only records). */
  target: NfcTarget | undefined;
  /** `Reading card` while the link is established (ChargingService.setReading). */
  setReading(on: boolean): void;
  logger: Logger;
  /** The event log: the link up and down. */
  events?: Pick<EventLog, 'record'>;
}

/**
 * Connects the NFC link actor (machines/nfc-link.ts) to the reader's target mode and to the API: APDUs go to the
 * actor, its responses to the reader; a committed request goes through the message mapping to the same fetch as
 * HTTP (request log included), with the NFC link as client address. Holds no rule: those are in the machine.
 */
export function createNfcService(deps: NfcDeps) {
  const { target, logger } = deps;
  let actor: NfcLinkActor | undefined;
  let handle: ReturnType<typeof createNfcRequestHandler> | undefined;
  let mode: RfidMode = target?.mode() ?? 'rfid';
  const unsubscribers: Unsubscribe[] = [];
  const inFlight = new Set<Promise<unknown>>();

  const send = (event: Parameters<NfcLinkActor['send']>[0]) => actor?.send(event);

  /** The effects the NFC link actor names (nfcLinkMachine.provide({ actions })). */
  const linkActions = {
    respond: ({ context }: { context: { reply: Uint8Array | null } }) => {
      if (context.reply) target?.respond(context.reply);
    },
    submit: (_: unknown, { message }: { message: Uint8Array }) => {
      const h = handle;
      if (!h) return;
      const p = h(message).then((answer) => send({ type: 'ANSWER', message: answer }));
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    },
    refuse: (_: unknown, { message }: { message: Uint8Array }) => {
      logger.warn({ transport: 'nfc' }, 'NFC request refused: another one is outstanding');
      send({ type: 'REFUSED', message: outstandingRefusal(message) });
    },
    showReading: () => {
      deps.setReading(true);
      deps.events?.record({ kind: 'nfc_link_up' });
    },
    hideReading: () => {
      deps.setReading(false);
      deps.events?.record({ kind: 'nfc_link_down' });
    },
    resumeChecking: () => target?.resumeChecking(),
  };

  return {
    linkActions,

    /** Starts the link once the actor runs and the API exists. */
    attach(link: NfcLinkActor, fetch: Fetch): void {
      actor = link;
      handle = createNfcRequestHandler({ fetch, clientAddress: NFC_CLIENT_ADDRESS, maxAnswerBytes: MAX_NDEF_MESSAGE, logger });
      if (!target) return;
      unsubscribers.push(
        target.onActivated(() => send({ type: 'PHONE.ACTIVATED' })),
        target.onApdu((apdu) => send({ type: 'APDU', apdu })),
        target.onReleased(() => send({ type: 'PHONE.RELEASED' })),
        target.onChecking(() => send({ type: 'READER.CHECKING' })),
      );
    },

    /**
     * The `RFID Mode` setting (spec 1): `rfid` = RFID only (default), `hybrid` = RFID/NFC hybrid. Takes effect at
     * once; the settings catalogue calls it.
     */
    setRfidMode(next: RfidMode): void {
      if (next !== 'rfid' && next !== 'hybrid') throw new RangeError(`RFID mode must be rfid or hybrid (got ${JSON.stringify(next)})`);
      mode = next;
      target?.setMode(next);
    },
    rfidMode: (): RfidMode => mode,

    /** The link's state, e.g. `checking` or `{established: …}` (for /sim and tests). */
    linkState: () => actor?.getSnapshot().value,

    /** Resolves when every request handed to the API has been answered. */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    stop(): void {
      for (const u of unsubscribers.splice(0)) u();
    },
  };
}

export type NfcService = ReturnType<typeof createNfcService>;
