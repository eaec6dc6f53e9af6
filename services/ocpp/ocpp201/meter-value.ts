import type { MeterValue } from '../meter-values.js';

/** The measurands meter-values.ts reads that 2.0.1 has (it dropped Temperature: NotifyEvent carries that). */
const MEASURANDS_201: ReadonlySet<string> = new Set([
  'Energy.Active.Import.Register',
  'Power.Active.Import',
  'Current.Import',
  'Voltage',
  'Current.Offered',
  'Power.Offered',
]);

/**
 * A reading (meter-values.ts, 1.6's form) as a 2.0.1 MeterValueType: values are numbers, the unit goes in
 * unitOfMeasure; measurands, phases, contexts and locations are spelled the same. Undefined: nothing 2.0.1 carries.
 */
export function toMeterValue201(value: MeterValue): Record<string, unknown> | undefined {
  const sampledValue = value.sampledValue
    .filter((s) => s.measurand === undefined || MEASURANDS_201.has(s.measurand))
    .map(({ value: v, unit, ...rest }) => ({ value: Number(v), ...rest, ...(unit ? { unitOfMeasure: { unit } } : {}) }));
  return sampledValue.length ? { timestamp: value.timestamp, sampledValue } : undefined;
}
