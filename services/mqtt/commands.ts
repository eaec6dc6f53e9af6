import type { Role } from '../../db/schema.js';
import type { ChargeControl } from '../charge-control.js';
import type { SolarMode } from '../energy/allocator.js';
import type { EnergyControl } from '../energy/contracts.js';
import { OperationError } from '../errors.js';
import type { FieldDef } from '../settings/catalogue.js';
import { checkValue, type Settings } from '../settings/index.js';
import { SOLAR_MODES } from './energy-topics.js';

/**
 * Commands on `<base>/set/<command>` (docs/mqtt.md). The payload is a JSON value, validated exactly as PATCH
 * /v1/settings validates it (the same code: settings.set for the settings, checkValue for the load limit), so a bad
 * command changes nothing and its result carries the same reason the API would give.
 */

/** Commands that write a setting (persisted, as PATCH /v1/settings does). */
export const SETTING_COMMANDS = ['ChargingEnabled', 'MaxCurrent'] as const;
/** Commands on the running charge (services/charge-control.ts): `Charge` 1 start / 0 stop, `Pause` 1 pause / 0 resume. */
export const CHARGE_COMMANDS = ['Charge', 'Pause'] as const;
/** Energy management's mode (services/energy/contracts.ts `setMode`): `fast`, `solar`, `minSolar`. */
export const MODE_COMMAND = 'ChargingMode';
/**
 * Energy management's schedule and session goals: settings (services/energy/settings.ts) written as PATCH
 * /v1/settings writes them; refused where energy management does not run (nothing would apply them).
 */
export const GOAL_COMMANDS = ['ChargingSchedule', 'DepartureTime', 'DepartureEnergy', 'SessionEnergyLimit', 'SessionDurationLimit'] as const;
/** The departure time and its energy target in one write, all or nothing: `{"time": "07:30", "energyKWh": 20}`. */
export const DEPARTURE_COMMAND = 'Departure';
/** The current of the running charge (charge-control.ts `setCurrent`, as the dashboard's slider): amps, or null to free it. */
export const CURRENT_COMMAND = 'ChargeCurrent';
export const COMMANDS = [...SETTING_COMMANDS, 'LoadLimit', ...CHARGE_COMMANDS, CURRENT_COMMAND, MODE_COMMAND, ...GOAL_COMMANDS, DEPARTURE_COMMAND] as const;
/** A correlation id (`{"value": …, "id": …}`), echoed in the result: at most this many characters. */
export const MAX_ID_LENGTH = 64;
/** Larger payloads are refused unread (room for the longest schedule, 255 characters, with an id). */
export const MAX_PAYLOAD_BYTES = 512;
/** The role commands act with on the settings (the role that may change them through the API). */
export const CONTROL_ROLE: Role = 'operator';

/** The load limit: not a stored setting, validated like one. */
export const LOAD_LIMIT_FIELD: Extract<FieldDef, { type: 'int' }> = {
  key: 'LoadLimit',
  label: 'Load limit',
  description: 'The current limit of load management (A); below 6 A charging pauses.',
  type: 'int',
  range: [0, 80],
  default: 0,
  unit: 'A',
  mode: 'rw',
  role: CONTROL_ROLE,
};

/** A command's answer on `<base>/result`; `id`: the request's correlation id, when it had one. */
export type CommandResult = { command: string; id?: string | number } & ({ success: true; value: unknown } | { success: false; cause: string });

export interface CommandDeps {
  settings: Pick<Settings, 'set' | 'texts'>;
  /** Control over MQTT is allowed (MqttControl). */
  control(): boolean;
  /** Load management over MQTT is on (the load-limit region is not `off`). */
  loadManagement(): boolean;
  /** A valid load limit (A). */
  limit(amps: number): void;
  /** Start/stop and pause/resume of the running charge: a refusal throws an OperationError with the reason. */
  charge: Pick<ChargeControl, 'start' | 'stop' | 'pause' | 'resume' | 'setCurrent'>;
  /** Energy management's mode; undefined: energy management is not running. */
  energy?: Pick<EnergyControl, 'setMode'> | undefined;
}

type Parsed = { ok: true; value: unknown; id?: string | number } | { ok: false; cause: string };

/**
 * The payload: a JSON value, or `{"value": …}` with an optional correlation id `"id"` (a string or number, as
 * zigbee2mqtt's bridge echoes its `transaction`), which the result repeats so clients can tell answers apart.
 */
export function parsePayload(payload: Buffer): Parsed {
  if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, cause: `The payload is longer than ${MAX_PAYLOAD_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return { ok: false, cause: 'The payload must be a JSON value, such as 16 or 1' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: true, value };
  const { id, ...rest } = value as { id?: unknown };
  const unwrapped = Object.keys(rest).length === 1 && 'value' in rest ? (rest as { value: unknown }).value : rest;
  if (id === undefined) return { ok: true, value: unwrapped };
  const validId = (typeof id === 'string' && id.length <= MAX_ID_LENGTH) || (typeof id === 'number' && Number.isFinite(id));
  if (!validId) return { ok: false, cause: `"id" must be a string of at most ${MAX_ID_LENGTH} characters or a number` };
  return { ok: true, id: id as string | number, value: unwrapped };
}

/** The start of every answer: the command, and the payload's correlation id if it has a valid one. */
function answerHead(command: string, payload: Buffer): { command: string; id?: string | number } {
  const parsed = parsePayload(payload);
  return parsed.ok && parsed.id !== undefined ? { command, id: parsed.id } : { command };
}

/** A refusal of a command before it runs (too many waiting, a failed write), with the request's id. */
export const refusal = (command: string, payload: Buffer, cause: string): CommandResult => ({ ...answerHead(command, payload), success: false, cause });

/** Carries out one command: every refusal is a result with its cause (only a failing database write throws). */
export async function runCommand(deps: CommandDeps, command: string, payload: Buffer): Promise<CommandResult> {
  const head = answerHead(command, payload);
  const refuse = (cause: string): CommandResult => ({ ...head, success: false, cause });
  if (!(COMMANDS as readonly string[]).includes(command)) return refuse(`Unknown command ${JSON.stringify(command)}; the commands are ${COMMANDS.join(', ')}`);
  if (!deps.control()) return refuse('Control over MQTT is off (setting MqttControl)');
  const parsed = parsePayload(payload);
  if (!parsed.ok) return refuse(parsed.cause);
  const { value } = parsed;
  if (command === 'Charge' || command === 'Pause') {
    if (value !== 0 && value !== 1) return refuse(`${JSON.stringify(command)} must be 1 or 0`);
    const control = deps.charge;
    try {
      if (command === 'Charge') {
        if (value === 1) control.start();
        else control.stop();
      } else if (value === 1) control.pause();
      else control.resume();
    } catch (err) {
      if (!(err instanceof OperationError)) throw err;
      return refuse(err.message);
    }
    return { ...head, success: true, value };
  }
  const energyOff = 'Energy management is not running on this controller';
  if (command === CURRENT_COMMAND) {
    if (value !== null && typeof value !== 'number') return refuse(`${JSON.stringify(command)} must be a number of amperes or null`);
    try {
      deps.charge.setCurrent(value);
    } catch (err) {
      if (!(err instanceof OperationError)) throw err;
      return refuse(err.message);
    }
    return { ...head, success: true, value };
  }
  if (command === MODE_COMMAND) {
    if (!deps.energy) return refuse(energyOff);
    if (typeof value !== 'string' || !(SOLAR_MODES as readonly string[]).includes(value)) {
      return refuse(`${JSON.stringify(command)} must be one of ${SOLAR_MODES.map((m) => JSON.stringify(m)).join(', ')}`);
    }
    try {
      await deps.energy.setMode(value as SolarMode);
    } catch (err) {
      if (!(err instanceof OperationError)) throw err;
      return refuse(err.message);
    }
    return { ...head, success: true, value };
  }
  if (command === 'LoadLimit') {
    if (!deps.loadManagement()) return refuse('Load limits over MQTT are off (setting MqttLoadManagement)');
    const checked = checkValue(LOAD_LIMIT_FIELD, value, deps.settings.texts());
    if (!checked.ok) return refuse(`${JSON.stringify(command)} ${checked.reason}`);
    deps.limit(checked.value as number);
    return { ...head, success: true, value: checked.value };
  }
  const goal = command === DEPARTURE_COMMAND || (GOAL_COMMANDS as readonly string[]).includes(command);
  if (goal && !deps.energy) return refuse(energyOff);
  if (command === DEPARTURE_COMMAND) {
    const keys = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value).sort().join() : '';
    if (keys !== 'energyKWh,time') return refuse(`${JSON.stringify(command)} must be an object {"time": "HH:MM", "energyKWh": kWh} ("" and 0: off)`);
    const { time, energyKWh } = value as { time: unknown; energyKWh: unknown };
    const cause = await writeSettings(deps, [
      { key: 'DepartureTime', value: time },
      { key: 'DepartureEnergy', value: energyKWh },
    ]);
    return cause === null ? { ...head, success: true, value: { time, energyKWh } } : refuse(cause);
  }
  const cause = await writeSettings(deps, [{ key: command, value }]);
  return cause === null ? { ...head, success: true, value } : refuse(cause);
}

/** Writes settings as PATCH /v1/settings does (all or nothing); the refusal's cause names each refused key, else null. */
async function writeSettings(deps: CommandDeps, pairs: Array<{ key: string; value: unknown }>): Promise<string | null> {
  try {
    await deps.settings.set({ role: CONTROL_ROLE, username: 'mqtt' }, pairs as Parameters<Settings['set']>[1]);
    return null;
  } catch (err) {
    if (!(err instanceof OperationError)) throw err;
    const refused = (err.details?.params as Array<{ key: string; cause?: string }> | undefined)?.filter((p) => p.cause !== undefined) ?? [];
    return refused.length ? refused.map((p) => `${JSON.stringify(p.key)} ${p.cause}`).join('; ') : err.message;
  }
}
