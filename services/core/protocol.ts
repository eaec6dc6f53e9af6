/**
 * The messages between the charge-point core and the main thread, both ways, as valibot schemas: each side checks
 * every message it receives (a malformed one is logged and dropped, never acted on). The core sends its state and
 * the effects the main thread persists (transaction start, checkpoints, stop); the main thread sends inputs
 * (authorised tags, settings, load limits) and never waits for the core on the safety path.
 */
import * as v from 'valibot';
import type { StateValue } from 'xstate';
import { ALTERNATE_MS_RANGE, SIM_FAULTS, type SimState } from '../../drivers/sim/plant.js';
import { DAY_PROFILES } from '../../drivers/sim/day-profiles.js';
import { MAX_HOUSE_STEP_W, PEAK_RANGE, SPEED_RANGE, type SiteConfiguration } from '../../drivers/sim/site.js';
import {
  AUTHORIZATION_SOURCES,
  BLOCKING_FAULTS,
  COMMANDED_STOP_REASONS,
  TAG_ACCEPTANCES,
  TAG_REFUSALS,
  type ChargeContext,
  type ChargeSettings,
} from '../../machines/charge-cycle.js';
import { AUTH_STATES, CONNECTION_STATES, OCPP_STATES, SYSTEM_STATES, TYPE2_STATES } from './system-state.js';
import { HMI_STATES } from './hmi.js';
import { PHASE_SWITCH_MODES } from './phase-switch-mode.js';
import type { InspectRecord } from './inspection.js';

/** The safety reactions the core measures: from the hardware's reading to the output commanded. */
export const REACTIONS = ['contactor_open_on_pause', 'contactor_open_on_unplug', 'power_cut', 'fault_open'] as const;
export type Reaction = (typeof REACTIONS)[number];

/** OCPP 1.6 stop reasons the core gives (`Reboot`: a graceful stop of the controller). */
export const STOP_REASONS = ['EVDisconnected', 'Local', 'Other', 'Reboot', ...COMMANDED_STOP_REASONS] as const;

const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const finite = v.pipe(v.number(), v.finite());
const time = v.pipe(v.number(), v.integer(), v.minValue(0));
const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
/** Tag ids (whitelist ids: at most 255 characters) and user ids (UUIDs). */
const tagId = text(255);
const PILOT_LEVELS = ['a', 'b', 'c', 'd', 'e', 'f'] as const;

const ChargeSettingsSchema = v.strictObject({
  freeCharging: v.boolean(),
  chargingEnabled: v.boolean(),
  ventilationAvailable: v.boolean(),
  authTimeoutMs: int(0, 24 * 3_600_000),
  maxCurrentA: int(0, 80),
}) satisfies v.GenericSchema<ChargeSettings>;

/** What the core needs to start its charge cycle (after the main thread has read the settings). */
export const CoreStartSchema = v.strictObject({
  settings: ChargeSettingsSchema,
  phases: v.picklist([1, 3]),
  phaseSwitchMode: v.optional(v.picklist(PHASE_SWITCH_MODES)),
  pilotDebounceMs: int(0, 1000),
});
export type CoreStart = v.InferOutput<typeof CoreStartSchema>;

const SimCommandSchema = v.variant('op', [
  v.strictObject({ op: v.picklist(['state', 'plug', 'unplug', 'charge', 'pause']) }),
  v.strictObject({
    op: v.literal('ev'),
    maxCurrentA: v.optional(finite),
    ventilation: v.optional(v.boolean()),
    alternateMs: v.optional(v.union([v.literal(0), int(...ALTERNATE_MS_RANGE)])),
  }),
  v.strictObject({ op: v.literal('fault'), fault: v.picklist(SIM_FAULTS), active: v.boolean() }),
  v.strictObject({ op: v.literal('temperature'), celsius: finite }),
]);
export type SimCommand = v.InferOutput<typeof SimCommandSchema>;

/** The energy inputs on the core's hardware to read (services/core/grid-inputs.ts): the grid meter's address (null: none), the contact. */
const GridInputsConfigSchema = v.strictObject({ meterAddress: v.nullable(int(1, 247)), rippleContact: v.boolean() });
export type GridInputsConfig = v.InferOutput<typeof GridInputsConfigSchema>;

const SimDaySchema = v.strictObject({
  profile: v.picklist(['off', ...DAY_PROFILES]),
  speed: v.pipe(finite, v.minValue(SPEED_RANGE[0]), v.maxValue(SPEED_RANGE[1])),
  startHour: v.pipe(
    finite,
    v.minValue(0),
    v.check((hour) => hour < 24, 'must be below 24'),
  ),
  peakW: v.pipe(finite, v.minValue(PEAK_RANGE[0]), v.maxValue(PEAK_RANGE[1])),
  seed: int(0, 0xffffffff),
});
const housePower = v.pipe(finite, v.minValue(0), v.maxValue(MAX_HOUSE_STEP_W));
/** The simulated site as the controller's simulator set it, for the core's twin (drivers/sim/site.ts). */
const SiteConfigurationSchema = v.strictObject({
  day: SimDaySchema,
  dayStartedAt: finite,
  houseStepW: v.tuple([housePower, housePower, housePower]),
  rippleContactClosed: v.boolean(),
}) satisfies v.GenericSchema<SiteConfiguration>;

/** Main thread → core. */
export const ToCoreSchema = v.variant('type', [
  /** The main thread is alive (sent every HEARTBEAT_MS). */
  v.strictObject({ type: v.literal('heartbeat') }),
  v.strictObject({ type: v.literal('start'), start: CoreStartSchema }),
  /** A tag, already checked against the whitelist. */
  v.strictObject({ type: v.literal('tag'), id: tagId, known: v.boolean(), userId: v.optional(tagId) }),
  /** An authorization without a tag (a user's start: services/charge-control.ts). */
  v.strictObject({ type: v.literal('authorize'), source: v.picklist(AUTHORIZATION_SOURCES) }),
  v.strictObject({ type: v.literal('settings'), settings: v.partial(ChargeSettingsSchema) }),
  /** Stop the running transaction with this reason (the central system); nothing happens without one. */
  v.strictObject({ type: v.literal('stopTransaction'), reason: v.picklist(COMMANDED_STOP_REASONS) }),
  v.strictObject({ type: v.literal('loadLimit'), amps: v.nullable(v.pipe(finite, v.minValue(0), v.maxValue(80))) }),
  /** 1-/3-phase switching: the mode (setting PhaseSwitchMode) and the allocator's preferred phase count (null: none). */
  v.strictObject({ type: v.literal('phases'), mode: v.optional(v.picklist(PHASE_SWITCH_MODES)), wanted: v.optional(v.nullable(v.picklist([1, 3]))) }),
  /** The energy inputs to read on the core's hardware (the settings GridPowerSource, GridMeterAddress, GridOperatorSource). */
  v.strictObject({ type: v.literal('gridInputs'), config: GridInputsConfigSchema }),
  /** The simulated site's configuration (HARDWARE=sim): the core's twin follows the simulator's. */
  v.strictObject({ type: v.literal('site'), site: SiteConfigurationSchema }),
  /** `Reading card` on the LEDs: while `on` (the NFC link), or for `forMs` (an RFID read). */
  v.strictObject({ type: v.literal('reading'), on: v.boolean(), forMs: v.optional(int(1, 60_000)) }),
  /** Buzzer feedback the main thread's actors name (pairing). */
  v.strictObject({ type: v.literal('beep'), count: int(1, 10), ms: int(1, 5000) }),
  /** The wall clock's offset to the base clock (ms): the controller follows a trusted time source (OCPP). */
  v.strictObject({ type: v.literal('clock'), offsetMs: v.pipe(v.number(), v.integer(), v.minValue(-1e13), v.maxValue(1e13)) }),
  /** Forward the core's inspection stream (only while an /inspect page watches). */
  v.strictObject({ type: v.literal('inspect'), on: v.boolean() }),
  /** Requests answered by a `reply` with the same id. */
  v.strictObject({ type: v.literal('sim'), id: v.number(), command: SimCommandSchema }),
  v.strictObject({ type: v.literal('sync'), id: v.number() }),
  v.strictObject({ type: v.literal('stop'), id: v.number() }),
]);
export type ToCore = v.InferOutput<typeof ToCoreSchema>;

const MessageSchema = v.strictObject({
  severity: v.picklist(['ERROR', 'WARNING']),
  errorCode: text(64),
  message: text(1000),
  correctiveActions: v.optional(text(1000)),
});

/** The metering of a transaction: the registers counted and when they were read (null: not read yet). */
const TransactionRecordSchema = v.strictObject({
  id: text(36),
  startedAt: time,
  tagId: v.optional(tagId),
  userId: v.optional(tagId),
  meterStartWh: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  meterStartAt: v.nullable(time),
  meterLastWh: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))),
  meterLastAt: v.nullable(time),
  maxPowerW: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
export type TransactionRecord = v.InferOutput<typeof TransactionRecordSchema>;

const ChargeContextSchema = v.strictObject({
  pilot: v.picklist(PILOT_LEVELS),
  settings: ChargeSettingsSchema,
  loadLimitA: v.nullable(finite),
  faults: v.array(v.picklist(BLOCKING_FAULTS)),
  authorization: v.nullable(v.strictObject({ tagId: v.optional(tagId), userId: v.optional(tagId), source: v.optional(v.picklist(AUTHORIZATION_SOURCES)) })),
}) satisfies v.GenericSchema<ChargeContext>;

/** Whether `value` is an actor's state value: a string, or an object whose members are state values (or undefined). */
function isStateValue(value: unknown, depth = 0): value is StateValue {
  if (typeof value === 'string') return true;
  if (depth > 16 || typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return Object.values(value).every((child) => child === undefined || isStateValue(child, depth + 1));
}
const StateValueSchema = v.custom<StateValue>((value) => isStateValue(value), 'must be a state value');

/** The core's state after every change: what /v1/system_state, /v1/messages, the HMI and the inspector show. */
const CoreStateSchema = v.strictObject({
  /** SystemState (spec 2.13) without `transaction`. */
  system: v.strictObject({
    systemState: v.picklist(SYSTEM_STATES),
    connectionState: v.picklist(CONNECTION_STATES),
    authState: v.picklist(AUTH_STATES),
    ocppState: v.picklist(OCPP_STATES),
    type2State: v.picklist(TYPE2_STATES),
    ambientTemp: v.optional(finite),
  }),
  /** The running transaction (ActiveTransactionDetails without the duration, which depends on the time of asking). */
  transaction: v.nullable(
    v.strictObject({
      transactionId: text(36),
      startedAt: time,
      tagId: v.optional(tagId),
      userId: v.optional(tagId),
      consumption: v.pipe(v.number(), v.integer(), v.minValue(0)),
      power: v.pipe(v.number(), v.integer()),
      maxPower: v.pipe(v.number(), v.integer(), v.minValue(0)),
      OCPPMeterCurrent: v.strictObject({ L1: finite, L2: v.optional(finite), L3: v.optional(finite) }),
    }),
  ),
  messages: v.array(MessageSchema),
  /** The meter's latest reading (register in Wh, power in W, current per phase in A); null while it does not answer. */
  meter: v.nullable(
    v.strictObject({
      energyWh: v.pipe(v.number(), v.integer(), v.minValue(0)),
      powerW: v.pipe(v.number(), v.integer()),
      currentsA: v.pipe(v.array(finite), v.maxLength(3)),
      voltagesV: v.optional(v.pipe(v.array(finite), v.maxLength(3))),
    }),
  ),
  hmi: v.picklist(HMI_STATES),
  /** What the outputs are commanded to: contactor, the current the PWM announces (null: PWM off), cable lock. */
  outputs: v.strictObject({ contactorClosed: v.boolean(), pwmA: v.nullable(finite), cableLocked: v.boolean() }),
  /** The phases: supplied now, wired, whether they can be switched, a switch running, switches in this session. */
  phases: v.strictObject({
    actual: v.picklist([1, 3]),
    wired: v.picklist([1, 3]),
    switchable: v.boolean(),
    switching: v.boolean(),
    switches: v.pipe(v.number(), v.integer(), v.minValue(0)),
  }),
  /** The charge-cycle actor as the inspector shows it. */
  chargeCycle: v.strictObject({ status: v.string(), value: StateValueSchema, context: ChargeContextSchema }),
  /** The phase-switch actor as the inspector shows it (its context is not shown); null before it runs. */
  phaseSwitch: v.nullable(v.strictObject({ status: v.string(), value: StateValueSchema })),
});
export type CoreState = v.InferOutput<typeof CoreStateSchema>;

/** One inspection record of the core's actors (see services/inspector.ts). */
const InspectRecordSchema = v.variant('kind', [
  v.strictObject({ kind: v.literal('event'), systemId: v.string(), event: v.looseObject({ type: v.string() }) }),
  v.strictObject({ kind: v.literal('microstep'), systemId: v.string(), transitions: v.array(v.string()) }),
  v.strictObject({ kind: v.literal('snapshot'), systemId: v.string(), status: v.string(), value: StateValueSchema, context: v.unknown() }),
]) satisfies v.GenericSchema<unknown, InspectRecord>;

/** Event-loop delay of a thread over the last window (seconds). */
const LoopDelaySchema = v.strictObject({ p50: finite, p99: finite, max: finite });
export type LoopDelay = v.InferOutput<typeof LoopDelaySchema>;

/**
 * What the core decided that people should know, for the event log (services/events.ts, the same fields): a tag's
 * outcome and why, and messages (faults and warnings) raised and cleared.
 */
const ReportedEventSchema = v.variant('kind', [
  v.strictObject({ kind: v.literal('tag_accepted'), tagId, userId: v.optional(tagId), outcome: v.picklist(TAG_ACCEPTANCES) }),
  v.strictObject({ kind: v.literal('tag_refused'), tagId, reason: v.picklist(TAG_REFUSALS) }),
  v.strictObject({ kind: v.literal('tag_ignored'), tagId }),
  v.strictObject({ kind: v.picklist(['fault_raised', 'fault_cleared']), code: text(64), severity: v.picklist(['ERROR', 'WARNING']) }),
]);
export type ReportedEvent = v.InferOutput<typeof ReportedEventSchema>;

/** A reading of the energy inputs on the core's hardware: the grid meter's power per line (null: it stopped answering), the contact. */
const GridReadingSchema = v.variant('type', [
  v.strictObject({ type: v.literal('gridPower'), powerW: v.nullable(v.tuple([finite, finite, finite])), error: v.optional(text(500)) }),
  v.strictObject({ type: v.literal('rippleContact'), closed: v.boolean() }),
]);
export type GridReading = v.InferOutput<typeof GridReadingSchema>;

/** Core → main thread. */
export const FromCoreSchema = v.variant('type', [
  ...GridReadingSchema.options,
  /** The hardware could be loaded (HARDWARE=rpi: pigpio initialised); the core waits for `start`. */
  v.strictObject({ type: v.literal('hardware') }),
  /** The hardware could not be loaded: the controller does not start. */
  v.strictObject({ type: v.literal('failed'), error: text(10_000) }),
  /** Started: the charge cycle runs. */
  v.strictObject({ type: v.literal('ready') }),
  v.strictObject({ type: v.literal('heartbeat'), loop: LoopDelaySchema }),
  v.strictObject({ type: v.literal('state'), state: CoreStateSchema }),
  v.strictObject({
    type: v.literal('transaction'),
    event: v.picklist(['start', 'checkpoint', 'stop']),
    record: TransactionRecordSchema,
    /** When the event happened (the stop: the end of the transaction). */
    at: time,
    reason: v.optional(v.picklist(STOP_REASONS)),
  }),
  v.strictObject({ type: v.literal('log'), level: v.picklist(['debug', 'info', 'warn', 'error']), msg: text(1000), fields: v.record(v.string(), v.unknown()) }),
  v.strictObject({ type: v.literal('reaction'), reaction: v.picklist(REACTIONS), seconds: v.pipe(finite, v.minValue(0)) }),
  /** An event for people, when it happened (posted, never awaited). */
  v.strictObject({ type: v.literal('event'), at: time, event: ReportedEventSchema }),
  v.strictObject({ type: v.literal('inspection'), records: v.array(InspectRecordSchema) }),
  v.strictObject({ type: v.literal('reply'), id: v.number(), ok: v.boolean(), error: v.optional(text(1000)), plant: v.optional(v.unknown()) }),
]);
export type FromCore = v.InferOutput<typeof FromCoreSchema>;

/** The plant's state in a `sim` reply (checked where it is used: it is shown as is). */
export type SimReply = { plant: SimState };

/** The systemId of the core's root actor (the main thread's is `controller`). */
export const CORE_SYSTEM_ID = 'core';

/** A thread sends a heartbeat this often … */
export const HEARTBEAT_MS = 200;
/**
 * The core thread's nice value: when the CPU is short (the main thread busy with requests, other processes), the
 * kernel runs this thread first, so its timers keep their deadlines. Only this thread is raised (Linux schedules
 * threads one by one: setpriority(0) names the calling thread). It needs CAP_SYS_NICE or an RLIMIT_NICE that allows
 * it (the service unit's LimitNICE); without either the core runs at the process's priority, which is logged.
 */
export const CORE_NICE = -10;

/** … and the other side takes it as lost after this long without any message from it. */
export const LIVENESS_TIMEOUT_MS = 1_000;
