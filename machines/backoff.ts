/**
 * The wait before the `failures`-th retry of a link (MQTT broker, OCPP central system): `firstMs`, doubling with each
 * further failure, at most `maxMs`.
 */
export function exponentialBackoff(failures: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.max(0, failures - 1));
}
