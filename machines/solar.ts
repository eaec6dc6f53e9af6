import { and, assign, not, setup, stateIn, type SnapshotFrom } from 'xstate';

/**
 * Solar start and stop (docs/energy.md, "Solar"): decides whether the charge point may charge in Solar mode, so a
 * passing cloud does not cycle the contactor. The surplus comes in already smoothed (an input concern); this machine
 * holds the thresholds, their delays, the minimum charge time and the minimum pause.
 *
 * - `bypassed`: mode Fast or Min + Solar, nothing to decide (tag `run`).
 * - `paused`: no charging. Two regions: `minimum` (the minimum pause since the last stop) and `surplus` (above the
 *   start threshold for the start delay). Charging starts when both are done.
 * - `charging` (tag `run`): two regions: `minimum` (the minimum charge time) and `surplus` (below the stop threshold
 *   for the stop delay). Charging stops when both are done.
 * Between the thresholds (the dead band) nothing changes. A missing or stale surplus counts as none. A new session
 * owes no pause. So a session's solar starts are at least minimum charge time + minimum pause apart.
 *
 * Thresholds are relative to `minimumW`, the power of 6 A on the fewest phases the charge point can use.
 */

export type ChargingMode = 'fast' | 'solar' | 'minSolar';

export interface SolarParams {
  /** Start when the surplus is this much above the minimum power (W). */
  startMarginW: number;
  /** Stop when the surplus is this much below the minimum power (W): the grid import tolerated while charging. */
  stopMarginW: number;
  /** The surplus must stay above the start threshold this long (ms). */
  startDelayMs: number;
  /** The surplus must stay below the stop threshold this long (ms). */
  stopDelayMs: number;
  /** Once started, charging goes on at least this long (ms). */
  minChargeMs: number;
  /** Once stopped, the pause lasts at least this long (ms). */
  minPauseMs: number;
}

export const SOLAR_DEFAULTS: SolarParams = {
  startMarginW: 200,
  stopMarginW: 300,
  startDelayMs: 60_000,
  stopDelayMs: 300_000,
  minChargeMs: 600_000,
  minPauseMs: 600_000,
};

export interface SolarContext {
  params: SolarParams;
  mode: ChargingMode;
  /** The smoothed surplus available to the EV (W); null: none known (stale or missing). */
  surplusW: number | null;
  /** The power of 6 A on the fewest phases the charge point can use (W). */
  minimumW: number;
}

export interface SolarInput {
  mode?: ChargingMode;
  params?: Partial<SolarParams>;
  minimumW: number;
}

export type SolarEvent =
  | { type: 'SURPLUS'; watts: number | null; minimumW: number }
  | { type: 'MODE'; mode: ChargingMode }
  /** A new vehicle session: no pause owed. */
  | { type: 'SESSION' }
  | { type: 'PARAMS'; params: Partial<SolarParams> };

export const solarMachine = setup({
  types: { context: {} as SolarContext, events: {} as SolarEvent, input: {} as SolarInput },
  actions: {
    assignSurplus: assign(({ context, event }) => (event.type === 'SURPLUS' ? { surplusW: event.watts, minimumW: event.minimumW } : context)),
    assignMode: assign({ mode: ({ context, event }) => (event.type === 'MODE' ? event.mode : context.mode) }),
    assignParams: assign({ params: ({ context, event }) => (event.type === 'PARAMS' ? { ...context.params, ...event.params } : context.params) }),
    /** Solar lets charging start (for the log and the counters). */
    started: () => {},
    /** Solar stops charging. */
    stopped: () => {},
  },
  guards: {
    solarMode: ({ context }) => context.mode === 'solar',
    above: ({ context }) => context.surplusW !== null && context.surplusW >= context.minimumW + context.params.startMarginW,
    below: ({ context }) => context.surplusW === null || context.surplusW < context.minimumW - context.params.stopMarginW,
    mayStart: and([stateIn('#solar.paused.minimum.done'), stateIn('#solar.paused.surplus.highLong')]),
    mayStop: and([stateIn('#solar.charging.minimum.done'), stateIn('#solar.charging.surplus.lowLong')]),
  },
  delays: {
    startDelay: ({ context }) => context.params.startDelayMs,
    stopDelay: ({ context }) => context.params.stopDelayMs,
    minCharge: ({ context }) => context.params.minChargeMs,
    minPause: ({ context }) => context.params.minPauseMs,
  },
}).createMachine({
  id: 'solar',
  context: ({ input }) => ({
    params: { ...SOLAR_DEFAULTS, ...input.params },
    mode: input.mode ?? 'fast',
    surplusW: null,
    minimumW: input.minimumW,
  }),
  initial: 'bypassed',
  on: {
    SURPLUS: { actions: 'assignSurplus' },
    MODE: { actions: 'assignMode' },
    PARAMS: { actions: 'assignParams' },
    SESSION: { target: '.paused' },
  },
  states: {
    /** Fast or Min + Solar: solar decides nothing. */
    bypassed: {
      tags: ['run'],
      always: { guard: 'solarMode', target: 'paused' },
    },
    paused: {
      type: 'parallel',
      always: [
        { guard: not('solarMode'), target: 'bypassed' },
        { guard: 'mayStart', target: 'charging', actions: 'started' },
      ],
      states: {
        minimum: {
          initial: 'done',
          states: {
            resting: { after: { minPause: 'done' } },
            done: {},
          },
        },
        surplus: {
          initial: 'low',
          states: {
            low: { always: { guard: 'above', target: 'high' } },
            high: { always: { guard: not('above'), target: 'low' }, after: { startDelay: 'highLong' } },
            highLong: { always: { guard: not('above'), target: 'low' } },
          },
        },
      },
    },
    charging: {
      type: 'parallel',
      tags: ['run'],
      always: [
        { guard: not('solarMode'), target: 'bypassed' },
        { guard: 'mayStop', target: '#solar.paused.minimum.resting', actions: 'stopped' },
      ],
      states: {
        minimum: {
          initial: 'held',
          states: {
            held: { after: { minCharge: 'done' } },
            done: {},
          },
        },
        surplus: {
          initial: 'ok',
          states: {
            ok: { always: { guard: 'below', target: 'low' } },
            low: { always: { guard: not('below'), target: 'ok' }, after: { stopDelay: 'lowLong' } },
            lowLong: { always: { guard: not('below'), target: 'ok' } },
          },
        },
      },
    },
  },
});

export type SolarSnapshot = SnapshotFrom<typeof solarMachine>;
