/** The payloads of the single-value topics (docs/mqtt.md). */

/** The payload of an unknown value on a single-value topic (Home Assistant shows it as unknown). */
export const NO_VALUE = 'None';

/** A number as a payload, rounded to `digits` decimals; `None` when there is none. */
export function numberOr(value: number | null | undefined, digits?: number): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NO_VALUE;
  if (digits === undefined) return String(value);
  const factor = 10 ** digits;
  return String(Math.round(value * factor) / factor);
}
