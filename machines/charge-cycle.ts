import { assign, not, setup, type SnapshotFrom } from 'xstate';

/**
 * The charge cycle of one type 2 connector (IEC 61851-1 control pilot, OCPP 1.6 status), as one actor.
 *
 * Inputs are events: the debounced control-pilot level (PILOT), RFID tags already checked against the whitelist
 * (TAG), settings (SETTINGS), the external load-management limit (LOAD_LIMIT) and hardware faults found by the
 * supervising service (FAULT). PILOT, SETTINGS, LOAD_LIMIT and FAULT only update the context; the states react to
 * the context with eventless transitions, so a reading means the same thing whichever state it arrives in.
 *
 * Outputs are declarative: state tags say what the hardware must do (`pwm`: announce the allowed current,
 * `contactor`: relay closed, `locked`: cable locked), and state `meta` gives the spec's state names (2.13). One-shot
 * effects (transaction start/stop, buzzer feedback) are named actions, provided from outside. The machine reads no
 * clock and touches no device: timers are its named delays, run by the actor's clock.
 */

export type PilotLevel = 'a' | 'b' | 'c' | 'd' | 'e' | 'f';

/** Faults the supervising service reports that prevent charging (CP faults come from the PILOT level itself). */
export const BLOCKING_FAULTS = ['contactor-welded', 'contactor-not-closing', 'overtemperature'] as const;
export type BlockingFault = (typeof BLOCKING_FAULTS)[number];

/**
 * Faults that make the station unsafe to go on with the session: a contactor that does not follow its command, and
 * a pilot at E (shorted, or no power on the vehicle side) or F (diode or pilot circuit fault), where the vehicle
 * connection itself is in doubt. They end a running transaction. The others are recoverable and only suspend it:
 * overtemperature clears by itself once the station has cooled, and a vehicle asking for ventilation the
 * installation lacks (D) may go back to C.
 */
export const UNSAFE_FAULTS: readonly BlockingFault[] = ['contactor-welded', 'contactor-not-closing'];

/** Settings the charge cycle obeys; they take effect at once. */
export interface ChargeSettings {
  /** Every plug-in is authorized without a tag. */
  freeCharging: boolean;
  /** Off: the charge point is unavailable (a running transaction is stopped). */
  chargingEnabled: boolean;
  /** The installation ventilates: CP level D may charge. Without it D is an error. */
  ventilationAvailable: boolean;
  /** How long an authorization presented before plug-in is held (auth_timeout after that). */
  authTimeoutMs: number;
  /** The installation's maximum current per phase (A), announced by the PWM. */
  maxCurrentA: number;
}

export const DEFAULT_CHARGE_SETTINGS: ChargeSettings = {
  freeCharging: false,
  chargingEnabled: true,
  ventilationAvailable: false,
  authTimeoutMs: 30_000,
  maxCurrentA: 16,
};

/** IEC 61851-1: below 6 A there is no valid PWM, the EV must pause. */
export const MIN_CHARGE_CURRENT_A = 6;
/** IEC 61851-1: when the EV stays in C after the PWM went off, power is cut after this time. */
export const POWER_CUT_DELAY_MS = 6_000;

/**
 * Who authorizes without a tag: `user`, a person starting the charge over MQTT or the web API
 * (services/charge-control.ts). The station's own controls, so no tag and no user id: the transaction has no tagId.
 */
export const AUTHORIZATION_SOURCES = ['user'] as const;
export type AuthorizationSource = (typeof AUTHORIZATION_SOURCES)[number];

/** The authorization of the current session: a whitelisted tag, a start without a tag (`source`), or free charging (none). */
export interface Authorization {
  tagId?: string;
  userId?: string;
  source?: AuthorizationSource;
}

export interface ChargeContext {
  pilot: PilotLevel;
  settings: ChargeSettings;
  /** Limit from load management (A); null = none. */
  loadLimitA: number | null;
  faults: BlockingFault[];
  authorization: Authorization | null;
}

export interface ChargeInput {
  pilot?: PilotLevel;
  settings?: Partial<ChargeSettings>;
}

/** OCPP 1.6 reasons of a stop commanded from outside (the central system: STOP). */
export const COMMANDED_STOP_REASONS = ['Remote', 'HardReset', 'SoftReset', 'UnlockCommand', 'DeAuthorized'] as const;
export type CommandedStopReason = (typeof COMMANDED_STOP_REASONS)[number];

/** OCPP 1.6 StopTransaction reasons used here. */
export type StopReason = 'EVDisconnected' | 'Local' | 'Other' | CommandedStopReason;

export type ChargeEvent =
  | { type: 'PILOT'; level: PilotLevel }
  | { type: 'TAG'; id: string; known: boolean; userId?: string }
  /**
   * An authorization without a tag (a user's start): taken like a whitelisted tag where one starts or authorizes a
   * session (before plug-in: held for `authTimeout`; plugged in, waiting or finished: the transaction starts), ignored
   * elsewhere (a transaction runs or is stopping, unavailable, faulted: the caller refuses those beforehand).
   */
  | { type: 'AUTHORIZE'; source: AuthorizationSource }
  | { type: 'SETTINGS'; settings: Partial<ChargeSettings> }
  | { type: 'LOAD_LIMIT'; amps: number | null }
  | { type: 'FAULT'; fault: BlockingFault; active: boolean }
  /** Stop the running transaction (the central system: remote stop, reset, unlock, an invalid id). */
  | { type: 'STOP'; reason: CommandedStopReason }
  /**
   * The 1-/3-phase switch (machines/phase-switch.ts) needs the main contactor open: taken only while pausing under
   * load (PWM already off), where it opens the contactor at once instead of at C→B or after 6 s; the transaction goes on.
   */
  | { type: 'OPEN_CONTACTOR' };

/** What a state means in the spec's vocabulary (2.13); connectionState and type2State follow from the context. */
export interface StateMeta {
  systemState: 'idle' | 'connected' | 'wait_for_auth' | 'charging' | 'charging_pause' | 'finished' | 'unavailable' | 'error';
  authState: 'not_authorized_for_charging' | 'wait_for_auth' | 'authorized_for_charging' | 'auth_timeout';
  ocppState: 'available' | 'preparing' | 'charging' | 'suspendedev' | 'suspendedevse' | 'finishing' | 'unavailable' | 'faulted';
}

const meta = (m: StateMeta) => m;

/** The allowed current: the installation maximum, lowered by load management. */
export function allowedCurrentA(ctx: ChargeContext): number {
  return Math.min(ctx.settings.maxCurrentA, ctx.loadLimitA ?? Number.POSITIVE_INFINITY);
}

/** The control-pilot fault a level stands for, if any (E, F, or D in an installation without ventilation). */
export function pilotFault(ctx: Pick<ChargeContext, 'pilot' | 'settings'>): 'pilot-short' | 'pilot-negative' | 'ventilation' | null {
  if (ctx.pilot === 'e') return 'pilot-short';
  if (ctx.pilot === 'f') return 'pilot-negative';
  if (ctx.pilot === 'd' && !ctx.settings.ventilationAvailable) return 'ventilation';
  return null;
}

/** Why a transaction stops, from the event that stopped it. */
export function stopReasonOf(event: ChargeEvent): StopReason {
  if (event.type === 'PILOT' && event.level === 'a') return 'EVDisconnected';
  if (event.type === 'TAG') return 'Local';
  if (event.type === 'STOP') return event.reason;
  return 'Other';
}

/** A fault that ends a session is present: CP E or F (the vehicle connection itself is in doubt), or a contactor fault. */
function unsafe(ctx: Pick<ChargeContext, 'pilot' | 'faults'>): boolean {
  return ctx.pilot === 'e' || ctx.pilot === 'f' || ctx.faults.some((f) => UNSAFE_FAULTS.includes(f));
}

/** No fault and charging enabled: the only condition under which the charge cycle's flow moves. */
export function operable(ctx: Pick<ChargeContext, 'pilot' | 'settings' | 'faults'>): boolean {
  return pilotFault(ctx) === null && ctx.faults.length === 0 && ctx.settings.chargingEnabled;
}

/**
 * A guard of the flow (plug-in, authorization, EV request, available current): it holds only while the charge point
 * is operable. XState selects eventless transitions from the innermost active state outward, so a rule of an
 * enclosing state (a fault, disabling) is reached only when no inner state's transition is enabled. With every flow
 * guard false while a fault or disabling is present, those rules are the only ones that can be taken then: before
 * anything else, in the step that found them (a fault never lets the contactor close, nor a transaction start).
 */
const flow =
  (holds: (ctx: ChargeContext) => boolean) =>
  ({ context }: { context: ChargeContext }): boolean =>
    operable(context) && holds(context);

/** The guards of the flow (`flow`): each also requires no fault and charging enabled. */
export const FLOW_GUARDS = ['plugged', 'unplugged', 'authorized', 'requesting', 'notRequesting', 'currentAvailable', 'currentUnavailable'] as const;

/** What each guard means, for the generated transition table (docs/charge-cycle.md). */
export const GUARD_DESCRIPTIONS: Record<string, string> = {
  blocked: 'a CP fault (E, F, or D without ventilation) or a hardware fault (contactor, overtemperature) is present',
  disabled: 'charging is disabled by setting',
  suspends:
    'a fault that suspends a transaction is present (overtemperature, D without ventilation), none that ends it ' +
    '(CP E or F, a welded contactor or one that does not close), charging is enabled and the vehicle connected',
  plugged: 'CP level B, C or D (vehicle connected)',
  unplugged: 'CP level A (no vehicle)',
  authorized: "an authorization is held (a tag or a user's start before plug-in), or free charging is enabled (no tag needed)",
  requesting: 'CP level C, or D where ventilation is available (the EV asks for energy)',
  notRequesting: 'CP level B (the EV does not ask for energy)',
  currentAvailable: 'allowed current (maximum current setting, lowered by load management) is 6 A or more',
  currentUnavailable: 'allowed current is below 6 A',
  knownTag: 'the tag is in the local whitelist',
  sessionTag: 'the tag is the one that authorized the session',
  otherKnownTag: 'a whitelisted tag other than the session tag',
};

/** What an accepted tag did, and why a tag was refused (reported with the feedback: the event log). */
export const TAG_ACCEPTANCES = ['authorized', 'stopped', 'cancelled'] as const;
export const TAG_REFUSALS = ['unknown', 'unavailable', 'faulted', 'stopping'] as const;
export type TagAcceptance = (typeof TAG_ACCEPTANCES)[number];
export type TagRefusal = (typeof TAG_REFUSALS)[number];
const accept = (outcome: TagAcceptance) => ({ type: 'acceptTag', params: { outcome } }) as const;
const refuse = (reason: TagRefusal) => ({ type: 'refuseTag', params: { reason } }) as const;

/** The session's tag while the contactor is closed: stop through `stopping` (PWM off first, contactor after C→B or 6 s). */
const STOP_UNDER_LOAD = { guard: 'sessionTag', target: '#chargeCycle.operative.session.stopping', actions: accept('stopped') } as const;
/** A commanded stop while the contactor is closed: the same way, without feedback. */
const COMMANDED_STOP_UNDER_LOAD = { target: '#chargeCycle.operative.session.stopping' } as const;

/**
 * Each rule is one transition of the state that encloses every state it applies to:
 * - `operative`: a fault leads to `faulted`, else disabling to `unavailable` (a present fault wins);
 * - `operative.available` / `operative.session`: plugging in starts a session, unplugging ends it; a whitelisted tag
 *   authorizes (before plug-in) or starts a transaction, in every state without a tag rule of its own;
 * - `operative.session.transaction`: a recoverable fault suspends it (`suspended` stays while the fault lasts);
 * - the root: the inputs update the context, and a tag no state takes is refused.
 * Priority follows from the structure: inner rules are reached first, and the flow's guards (FLOW_GUARDS) are false
 * while a fault or disabling is present, so in every state the fault and disabling rules come first.
 */
export const chargeCycleMachine = setup({
  types: {
    context: {} as ChargeContext,
    events: {} as ChargeEvent,
    input: {} as ChargeInput,
  },
  actions: {
    /** A transaction begins with the session's authorization (tag and user, or none with free charging). */
    startTransaction: (_, _params: Authorization) => {},
    /** The running transaction ends. */
    stopTransaction: (_, _params: { reason: StopReason }) => {},
    /** Feedback: a tag was accepted (it authorized, stopped its transaction, or cancelled its authorization). */
    acceptTag: (_, _params: { outcome: TagAcceptance }) => {},
    /** Feedback: a tag was refused (not whitelisted, or the charge point cannot charge now), and why. */
    refuseTag: (_, _params: { reason: TagRefusal }) => {},
    /** A known tag other than the session's was presented while charging: reported, not acted on. */
    reportTag: (_, _params: { id: string }) => {},
    assignPilot: assign({ pilot: ({ event }) => (event.type === 'PILOT' ? event.level : 'a') }),
    assignSettings: assign({
      settings: ({ context, event }) => (event.type === 'SETTINGS' ? { ...context.settings, ...event.settings } : context.settings),
    }),
    assignLoadLimit: assign({ loadLimitA: ({ context, event }) => (event.type === 'LOAD_LIMIT' ? event.amps : context.loadLimitA) }),
    assignFault: assign({
      faults: ({ context, event }) => {
        if (event.type !== 'FAULT') return context.faults;
        const others = context.faults.filter((f) => f !== event.fault);
        return event.active ? [...others, event.fault] : others;
      },
    }),
    authorizeByTag: assign({
      authorization: ({ event }) => {
        if (event.type !== 'TAG') return null;
        const auth: Authorization = { tagId: event.id };
        if (event.userId !== undefined) auth.userId = event.userId;
        return auth;
      },
    }),
    authorizeWithoutTag: assign({ authorization: ({ event }) => (event.type === 'AUTHORIZE' ? { source: event.source } : null) }),
    clearAuthorization: assign({ authorization: null }),
  },
  guards: {
    blocked: ({ context }) => pilotFault(context) !== null || context.faults.length > 0,
    disabled: ({ context }) => !context.settings.chargingEnabled,
    suspends: ({ context }) =>
      context.pilot !== 'a' &&
      context.settings.chargingEnabled &&
      (pilotFault(context) === 'ventilation' || context.faults.includes('overtemperature')) &&
      !unsafe(context),
    plugged: flow((c) => c.pilot === 'b' || c.pilot === 'c' || c.pilot === 'd'),
    unplugged: flow((c) => c.pilot === 'a'),
    authorized: flow((c) => c.authorization !== null || c.settings.freeCharging),
    // C, or D (where ventilation is available: without it D is a fault, and no flow guard holds).
    requesting: flow((c) => c.pilot === 'c' || c.pilot === 'd'),
    notRequesting: flow((c) => c.pilot === 'b'),
    currentAvailable: flow((c) => allowedCurrentA(c) >= MIN_CHARGE_CURRENT_A),
    currentUnavailable: flow((c) => allowedCurrentA(c) < MIN_CHARGE_CURRENT_A),
    knownTag: ({ event }) => event.type === 'TAG' && event.known,
    sessionTag: ({ context, event }) => event.type === 'TAG' && event.id === context.authorization?.tagId,
    otherKnownTag: ({ context, event }) =>
      event.type === 'TAG' &&
      event.known &&
      // the one transition with this guard comes after the
      // session tag's, which takes every tag of that id first.
      // Stryker disable next-line ConditionalExpression: see above
      event.id !== context.authorization?.tagId,
  },
  delays: {
    authTimeout: ({ context }) => context.settings.authTimeoutMs,
    powerCut: POWER_CUT_DELAY_MS,
  },
}).createMachine({
  id: 'chargeCycle',
  // A step takes at most 6 microsteps (a fault clears with the vehicle asking for energy and free charging on): a
  // rule that looped would throw instead of holding the core's thread.
  options: { maxIterations: 50 },
  context: ({ input }) => ({
    pilot: input.pilot ?? 'a',
    settings: { ...DEFAULT_CHARGE_SETTINGS, ...input.settings },
    loadLimitA: null,
    faults: [],
    authorization: null,
  }),
  on: {
    PILOT: { actions: 'assignPilot' },
    SETTINGS: { actions: 'assignSettings' },
    LOAD_LIMIT: { actions: 'assignLoadLimit' },
    FAULT: { actions: 'assignFault' },
    TAG: { actions: refuse('unknown') },
  },
  initial: 'operative',
  states: {
    /** Neither faulted nor disabled. Entered at start and on the way back; the vehicle's presence decides where. */
    operative: {
      initial: 'available',
      always: [
        { guard: 'blocked', target: 'faulted' },
        { guard: 'disabled', target: 'unavailable' },
      ],
      states: {
        /** No vehicle (CP A). An authorization may be presented first and is held for `authTimeout`. */
        available: {
          initial: 'idle',
          always: { guard: 'plugged', target: 'session' },
          // A whitelisted tag authorizes, also while another is held (the hold starts again).
          on: {
            TAG: { guard: 'knownTag', target: '.authorized', actions: ['authorizeByTag', accept('authorized')] },
            AUTHORIZE: { target: '.authorized', actions: 'authorizeWithoutTag' },
          },
          states: {
            idle: {
              meta: meta({ systemState: 'idle', authState: 'not_authorized_for_charging', ocppState: 'available' }),
              entry: 'clearAuthorization',
            },
            authorized: {
              meta: meta({ systemState: 'idle', authState: 'authorized_for_charging', ocppState: 'preparing' }),
              after: { authTimeout: 'expired' },
              on: { TAG: { guard: 'sessionTag', target: 'idle', actions: accept('cancelled') } },
            },
            expired: {
              meta: meta({ systemState: 'idle', authState: 'auth_timeout', ocppState: 'available' }),
              entry: 'clearAuthorization',
            },
          },
        },

        /** A vehicle is connected (CP B, C or D). Unplugging (A) ends the session from any of its states. */
        session: {
          initial: 'waitForAuth',
          always: { guard: 'unplugged', target: 'available' },
          // A whitelisted tag starts a transaction where no state has a tag rule of its own (waiting, finished).
          on: { TAG: { guard: 'knownTag', target: '.transaction', actions: ['authorizeByTag', accept('authorized')] } },
          states: {
            waitForAuth: {
              meta: meta({ systemState: 'wait_for_auth', authState: 'wait_for_auth', ocppState: 'preparing' }),
              always: { guard: 'authorized', target: 'transaction' },
              // without its target the transition would still end in 'transaction': authorizeWithoutTag makes
              // 'authorized' hold, and the always-transition above enters it in the same macrostep.
              // Stryker disable next-line StringLiteral: see above
              on: { AUTHORIZE: { target: 'transaction', actions: 'authorizeWithoutTag' } },
            },

            /** Plugged in and authorized: the transaction runs, the cable is locked. */
            transaction: {
              tags: ['locked'],
              entry: { type: 'startTransaction', params: ({ context }) => context.authorization ?? {} },
              exit: [{ type: 'stopTransaction', params: ({ event }) => ({ reason: stopReasonOf(event) }) }, 'clearAuthorization'],
              initial: 'ready',
              always: { guard: 'suspends', target: '.suspended' },
              on: {
                TAG: [
                  { guard: 'sessionTag', target: 'finished', actions: accept('stopped') },
                  { guard: 'otherKnownTag', actions: { type: 'reportTag', params: ({ event }) => ({ id: event.id }) } },
                ],
                STOP: 'finished',
              },
              states: {
                /** PWM announces the allowed current; the EV has not asked for energy yet. */
                ready: {
                  tags: ['pwm'],
                  meta: meta({ systemState: 'connected', authState: 'authorized_for_charging', ocppState: 'suspendedev' }),
                  always: [
                    { guard: 'currentUnavailable', target: 'evsePaused' },
                    { guard: 'requesting', target: 'underLoad' },
                  ],
                },
                /**
                 * Under load: the contactor is closed. The session's tag or a commanded stop ends the transaction
                 * through `stopping` (PWM off first, the contactor opens on C→B or after 6 s).
                 */
                underLoad: {
                  tags: ['contactor'],
                  initial: 'charging',
                  on: { TAG: STOP_UNDER_LOAD, STOP: COMMANDED_STOP_UNDER_LOAD },
                  states: {
                    charging: {
                      tags: ['pwm'],
                      meta: meta({ systemState: 'charging', authState: 'authorized_for_charging', ocppState: 'charging' }),
                      always: [
                        { guard: 'notRequesting', target: '#chargeCycle.operative.session.transaction.evPaused' },
                        { guard: 'currentUnavailable', target: 'pausing' },
                      ],
                    },
                    /** Allowed current fell below 6 A under load: PWM off, the EV should leave C; power is cut after 6 s. */
                    pausing: {
                      meta: meta({ systemState: 'charging_pause', authState: 'authorized_for_charging', ocppState: 'suspendedevse' }),
                      always: [
                        { guard: 'notRequesting', target: '#chargeCycle.operative.session.transaction.evsePaused' },
                        { guard: 'currentAvailable', target: 'charging' },
                      ],
                      after: { powerCut: '#chargeCycle.operative.session.transaction.evsePaused' },
                      on: { OPEN_CONTACTOR: '#chargeCycle.operative.session.transaction.evsePaused' },
                    },
                  },
                },
                /** The EV paused (C→B): contactor open, PWM stays on so it may resume. */
                evPaused: {
                  tags: ['pwm'],
                  meta: meta({ systemState: 'charging_pause', authState: 'authorized_for_charging', ocppState: 'suspendedev' }),
                  always: [
                    { guard: 'currentUnavailable', target: 'evsePaused' },
                    { guard: 'requesting', target: 'underLoad' },
                  ],
                },
                /** No current available: PWM off, contactor open, until load management allows 6 A again. */
                evsePaused: {
                  meta: meta({ systemState: 'charging_pause', authState: 'authorized_for_charging', ocppState: 'suspendedevse' }),
                  always: { guard: 'currentAvailable', target: 'ready' },
                },
                /**
                 * A recoverable fault (overtemperature, D without ventilation): PWM off, contactor open, the cable
                 * stays locked and the transaction goes on; charging resumes by itself once every cause is gone. Its
                 * rule without a target holds it while the fault lasts: being innermost, it is reached before the
                 * enclosing states' fault rules (a step that changes nothing ends there).
                 */
                suspended: {
                  meta: meta({ systemState: 'error', authState: 'authorized_for_charging', ocppState: 'suspendedevse' }),
                  always: [{ guard: 'plugged', target: 'ready' }, { guard: 'suspends' }],
                },
              },
            },

            /** Stopped by the session's tag under load (contactor closed): PWM off, contactor open on C→B or after 6 s. */
            stopping: {
              tags: ['contactor'],
              meta: meta({ systemState: 'finished', authState: 'not_authorized_for_charging', ocppState: 'finishing' }),
              always: { guard: 'notRequesting', target: 'finished' },
              after: { powerCut: 'finished' },
              on: { TAG: { actions: refuse('stopping') } },
            },
            /** The transaction is over, the cable is unlocked, the vehicle still connected. A new tag (or a user's start) starts a new one. */
            finished: {
              meta: meta({ systemState: 'finished', authState: 'not_authorized_for_charging', ocppState: 'finishing' }),
              on: { AUTHORIZE: { target: 'transaction', actions: 'authorizeWithoutTag' } },
            },
          },
        },
      },
    },

    /** Disabled by setting: no charging, tags refused. Returns by the vehicle's presence once enabled. */
    unavailable: {
      meta: meta({ systemState: 'unavailable', authState: 'not_authorized_for_charging', ocppState: 'unavailable' }),
      entry: 'clearAuthorization',
      always: [
        { guard: 'blocked', target: 'faulted' },
        { guard: not('disabled'), target: 'operative' },
      ],
      on: { TAG: { actions: refuse('unavailable') } },
    },

    /** A CP error or a hardware fault: contactor open, PWM off, cable unlocked. Returns once every cause is gone. */
    faulted: {
      meta: meta({ systemState: 'error', authState: 'not_authorized_for_charging', ocppState: 'faulted' }),
      entry: 'clearAuthorization',
      always: { guard: not('blocked'), target: 'operative' },
      on: { TAG: { actions: refuse('faulted') } },
    },
  },
});

export type ChargeCycleSnapshot = SnapshotFrom<typeof chargeCycleMachine>;

/** The meta of the active atomic state. */
export function stateMeta(snapshot: ChargeCycleSnapshot): StateMeta {
  const metas = Object.values(snapshot.getMeta()) as StateMeta[];
  // only atomic states have a meta and getMeta() lists only states
  // that have one, so the active state's meta is the one entry.
  // Stryker disable next-line ConditionalExpression: see above
  const found = metas.find((m) => m && typeof m.systemState === 'string');
  if (!found) throw new Error(`charge cycle state ${JSON.stringify(snapshot.value)} has no meta`);
  return found;
}
