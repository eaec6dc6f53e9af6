import { and, assign, not, setup, type SnapshotFrom } from 'xstate';
import { POWER_CUT_DELAY_MS } from './charge-cycle.js';

/**
 * The 1-/3-phase switch (docs/energy.md, "Phase switching"), for installations with a second contactor that
 * connects L2 and L3. The allocator says which phase count the limits prefer (WANT); this machine decides when to
 * switch and runs the sequence, so the phase contactor never moves under load:
 *
 * 1. `switching.draining` (tag `pause`: the charge point offers 0 A, the PWM goes off): wait until the EV draws
 *    nothing, at most the IEC 61851-1 power-cut time (6 s);
 * 2. `switching.opening`: the main contactor is commanded open; wait for its feedback (open);
 * 3. `switching.changing`: only now the phase contactor is set; wait the settle time;
 * 4. `cooldown`: the charge point resumes; the next switch waits the minimum time between switches.
 * Going down (3 → 1) starts at once; going up (1 → 3) only after three phases were preferred for the hold time.
 * A session switches at most `maxPerSession` times (a failed attempt counts). A main contactor that does not open
 * in time aborts the switch (the phase contactor untouched).
 */

export type PhaseCount = 1 | 3;

export interface PhaseSwitchParams {
  /** Three phases must be preferred this long before switching up (ms). */
  upHoldMs: number;
  /** The least time from the end of one switch to the start of the next (ms). */
  minIntervalMs: number;
  /** Switches per session at most. */
  maxPerSession: number;
  /** The EV draws below this: it stopped (A). */
  idleBelowA: number;
  /** The longest wait for the EV to stop drawing before the contactor opens anyway (ms). */
  drainTimeoutMs: number;
  /** The longest wait for the main contactor's feedback (ms). */
  contactorTimeoutMs: number;
  /** Wait after the phase contactor moved, before charging resumes (ms). */
  settleMs: number;
}

export const PHASE_SWITCH_DEFAULTS: PhaseSwitchParams = {
  upHoldMs: 600_000,
  minIntervalMs: 300_000,
  maxPerSession: 4,
  idleBelowA: 0.5,
  drainTimeoutMs: POWER_CUT_DELAY_MS,
  contactorTimeoutMs: 2_000,
  settleMs: 10_000,
};

export interface PhaseSwitchContext {
  params: PhaseSwitchParams;
  /** The phase contactor's setting. */
  phases: PhaseCount;
  /** The phase count the allocator prefers. */
  wanted: PhaseCount;
  /** Switches (and failed attempts) in this session. */
  switches: number;
  /** The EV's current now (A, highest line). */
  drawA: number;
  /** The main contactor's feedback: closed. */
  mainClosed: boolean;
}

export interface PhaseSwitchInput {
  phases: PhaseCount;
  params?: Partial<PhaseSwitchParams>;
}

export type PhaseSwitchEvent =
  | { type: 'WANT'; phases: PhaseCount }
  | { type: 'DRAW'; amps: number }
  | { type: 'CONTACTOR'; closed: boolean }
  /** A new session: the count of switches starts again. */
  | { type: 'SESSION' }
  | { type: 'PARAMS'; params: Partial<PhaseSwitchParams> };

export const phaseSwitchMachine = setup({
  types: { context: {} as PhaseSwitchContext, events: {} as PhaseSwitchEvent, input: {} as PhaseSwitchInput },
  actions: {
    assignWanted: assign({ wanted: ({ context, event }) => (event.type === 'WANT' ? event.phases : context.wanted) }),
    assignDraw: assign({ drawA: ({ context, event }) => (event.type === 'DRAW' ? event.amps : context.drawA) }),
    assignContactor: assign({ mainClosed: ({ context, event }) => (event.type === 'CONTACTOR' ? event.closed : context.mainClosed) }),
    assignParams: assign({ params: ({ context, event }) => (event.type === 'PARAMS' ? { ...context.params, ...event.params } : context.params) }),
    resetCount: assign({ switches: 0 }),
    /** A session that begins during a switch: that switch is its first. */
    countRunning: assign({ switches: 1 }),
    countSwitch: assign({ switches: ({ context }) => context.switches + 1 }),
    /** The main contactor is commanded open (the charge cycle opens it; its feedback comes as CONTACTOR). */
    openMainContactor: () => {},
    /** The phase contactor is set to `phases` (only ever with the main contactor open). */
    setPhaseContactor: (_, _params: { phases: PhaseCount }) => {},
    takePhases: assign({ phases: ({ context }) => context.wanted }),
    /** The switch failed: the main contactor did not open in time; the phases stay. */
    switchFailed: () => {},
  },
  guards: {
    wantsDown: ({ context }) => context.wanted === 1 && context.phases === 3,
    wantsUp: ({ context }) => context.wanted === 3 && context.phases === 1,
    allowed: ({ context }) => context.switches < context.params.maxPerSession,
    idle: ({ context }) => context.drawA < context.params.idleBelowA,
    mainOpen: ({ context }) => !context.mainClosed,
  },
  delays: {
    upHold: ({ context }) => context.params.upHoldMs,
    minInterval: ({ context }) => context.params.minIntervalMs,
    drainTimeout: ({ context }) => context.params.drainTimeoutMs,
    contactorTimeout: ({ context }) => context.params.contactorTimeoutMs,
    settle: ({ context }) => context.params.settleMs,
  },
}).createMachine({
  id: 'phaseSwitch',
  context: ({ input }) => ({
    params: { ...PHASE_SWITCH_DEFAULTS, ...input.params },
    phases: input.phases,
    wanted: input.phases,
    switches: 0,
    drawA: 0,
    mainClosed: false,
  }),
  initial: 'ready',
  on: {
    WANT: { actions: 'assignWanted' },
    DRAW: { actions: 'assignDraw' },
    CONTACTOR: { actions: 'assignContactor' },
    PARAMS: { actions: 'assignParams' },
    SESSION: { actions: 'resetCount' },
  },
  states: {
    /** No switch running; a different phase count is switched to (down at once, up after the hold time). */
    ready: {
      initial: 'steady',
      states: {
        steady: {
          always: [
            { guard: and(['wantsDown', 'allowed']), target: '#phaseSwitch.switching' },
            { guard: and(['wantsUp', 'allowed']), target: 'upHold' },
          ],
        },
        upHold: {
          always: { guard: not(and(['wantsUp', 'allowed'])), target: 'steady' },
          after: { upHold: '#phaseSwitch.switching' },
        },
      },
    },
    /** The switch sequence: the charge point offers 0 A throughout (tag `pause`). */
    switching: {
      tags: ['pause'],
      entry: 'countSwitch',
      on: { SESSION: { actions: 'countRunning' } },
      initial: 'draining',
      states: {
        draining: {
          always: { guard: 'idle', target: 'opening' },
          after: { drainTimeout: 'opening' },
        },
        opening: {
          entry: 'openMainContactor',
          always: { guard: 'mainOpen', target: 'changing' },
          after: { contactorTimeout: { target: '#phaseSwitch.cooldown', actions: 'switchFailed' } },
        },
        changing: {
          entry: [{ type: 'setPhaseContactor', params: ({ context }) => ({ phases: context.wanted }) }, 'takePhases'],
          after: { settle: '#phaseSwitch.cooldown' },
        },
      },
    },
    /** Charging resumes on the new phases; the next switch waits the minimum interval. */
    cooldown: {
      after: { minInterval: 'ready' },
    },
  },
});

export type PhaseSwitchSnapshot = SnapshotFrom<typeof phaseSwitchMachine>;
