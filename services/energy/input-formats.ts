import { ampsToWatts, type PerLine, type Phases } from './allocator.js';

/**
 * The formats the energy inputs accept, the same over MQTT and HTTP (docs/energy.md, Inputs): grid power in W
 * (import positive) and the grid operator's limit in W or A. Parsing is all or nothing: a value out of range or of
 * the wrong shape is refused with the reason, and nothing is taken.
 */

/** The largest grid power accepted per line (W): 250 A at 400 V, far above any house connection. */
export const MAX_LINE_POWER_W = 100_000;
/** The largest grid-operator limit accepted (W; A × 230 V × phases must stay below it too). */
export const MAX_OPERATOR_LIMIT_W = 1_000_000;

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * Grid power: a number (total W, taken as equal on the three lines: the per-line split is unknown) or three numbers
 * [L1, L2, L3] (W each); `{"powerW": …}` holds either.
 */
export function parseGridPower(value: unknown): Parsed<PerLine> {
  const inner = typeof value === 'object' && value !== null && !Array.isArray(value) ? unwrap(value, 'powerW') : value;
  if (finite(inner)) {
    if (Math.abs(inner) > 3 * MAX_LINE_POWER_W) return { ok: false, reason: `the grid power must be within ±${3 * MAX_LINE_POWER_W} W` };
    return { ok: true, value: [inner / 3, inner / 3, inner / 3] };
  }
  if (Array.isArray(inner) && inner.length === 3 && inner.every(finite)) {
    if (inner.some((w) => Math.abs(w) > MAX_LINE_POWER_W)) return { ok: false, reason: `each line's power must be within ±${MAX_LINE_POWER_W} W` };
    return { ok: true, value: [inner[0]!, inner[1]!, inner[2]!] };
  }
  return { ok: false, reason: 'the grid power must be a number of W or three numbers [L1, L2, L3] (import positive), alone or as {"powerW": …}' };
}

/**
 * The grid operator's limit: a number (W), `{"limitW": W}` or `{"limitA": A per phase}` (A × 230 V × `phases`);
 * null in either member: unlimited.
 */
export function parseGridOperatorLimit(value: unknown, phases: Phases): Parsed<number | null> {
  const shape = 'the limit must be a number of W, {"limitW": W} or {"limitA": A} (null: unlimited)';
  let watts: unknown = value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    if (keys.length !== 1 || (keys[0] !== 'limitW' && keys[0] !== 'limitA')) return { ok: false, reason: shape };
    const given = (value as Record<string, unknown>)[keys[0]];
    if (given === null) return { ok: true, value: null };
    if (!finite(given) || given < 0) return { ok: false, reason: `${keys[0]} must be a number of at least 0, or null` };
    watts = keys[0] === 'limitA' ? ampsToWatts(given, phases) : given;
  }
  if (value === null) return { ok: true, value: null };
  if (!finite(watts) || watts < 0) return { ok: false, reason: shape };
  if (watts > MAX_OPERATOR_LIMIT_W) return { ok: false, reason: `the limit must be at most ${MAX_OPERATOR_LIMIT_W} W` };
  return { ok: true, value: watts };
}

function unwrap(value: object, key: string): unknown {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === key ? (value as Record<string, unknown>)[key] : undefined;
}

/** An MQTT payload as JSON (a bare number is JSON too); undefined when it is not. */
export function payloadJson(payload: Buffer): unknown {
  try {
    return JSON.parse(payload.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
