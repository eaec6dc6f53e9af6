import type { Role } from '../../db/schema.js';
import { OperationError } from '../errors.js';
import type { FieldDef } from '../settings/catalogue.js';
import { checkValue, type Settings } from '../settings/index.js';

/**
 * Commands on `<base>/set/<command>` (docs/mqtt.md). The payload is a JSON value, validated exactly as PATCH
 * /v1/settings validates it (the same code: settings.set for the settings, checkValue for the load limit), so a bad
 * command changes nothing and its result carries the same reason the API would give.
 */

/** Commands that write a setting (persisted, as PATCH /v1/settings does). */
export const SETTING_COMMANDS = ['ChargingEnabled', 'MaxCurrent'] as const;
export const COMMANDS = [...SETTING_COMMANDS, 'LoadLimit'] as const;
/** Larger payloads are refused unread. */
export const MAX_PAYLOAD_BYTES = 256;
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

export type CommandResult = { command: string; success: true; value: unknown } | { command: string; success: false; cause: string };

export interface CommandDeps {
  settings: Pick<Settings, 'set' | 'texts'>;
  /** Control over MQTT is allowed (MqttControl). */
  control(): boolean;
  /** Load management over MQTT is on (the load-limit region is not `off`). */
  loadManagement(): boolean;
  /** A valid load limit (A). */
  limit(amps: number): void;
}

/** Carries out one command: every refusal is a result with its cause (only a failing database write throws). */
export async function runCommand(deps: CommandDeps, command: string, payload: Buffer): Promise<CommandResult> {
  const refuse = (cause: string): CommandResult => ({ command, success: false, cause });
  if (!(COMMANDS as readonly string[]).includes(command)) return refuse(`Unknown command ${JSON.stringify(command)}; the commands are ${COMMANDS.join(', ')}`);
  if (!deps.control()) return refuse('Control over MQTT is off (setting MqttControl)');
  if (payload.length > MAX_PAYLOAD_BYTES) return refuse(`The payload is longer than ${MAX_PAYLOAD_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return refuse('The payload must be a JSON value, such as 16 or 1');
  }
  if (command === 'LoadLimit') {
    if (!deps.loadManagement()) return refuse('Load limits over MQTT are off (setting MqttLoadManagement)');
    const checked = checkValue(LOAD_LIMIT_FIELD, value, deps.settings.texts());
    if (!checked.ok) return refuse(`${JSON.stringify(command)} ${checked.reason}`);
    deps.limit(checked.value as number);
    return { command, success: true, value: checked.value };
  }
  try {
    await deps.settings.set({ role: CONTROL_ROLE, username: 'mqtt' }, [{ key: command, value }]);
  } catch (err) {
    if (!(err instanceof OperationError)) throw err;
    const pair = (err.details?.params as Array<{ cause?: string }> | undefined)?.[0];
    return refuse(pair?.cause ? `${JSON.stringify(command)} ${pair.cause}` : err.message);
  }
  return { command, success: true, value: typeof value === 'object' && value !== null && 'value' in value ? (value as { value: unknown }).value : value };
}
