import type { CoreState } from '../core/protocol.js';

/** OCPP 1.6 MeterValue: sampledValue entries of one reading. */
export type SampledValue = { value: string; context?: string; measurand?: string; phase?: string; unit?: string; location?: string };
export type MeterValue = { timestamp: string; sampledValue: SampledValue[] };
export type SampleContext = 'Sample.Periodic' | 'Sample.Clock' | 'Trigger';

/**
 * One reading as an OCPP MeterValue, from the core's state: the energy register (Wh), power (W) and current per
 * phase (A) of the meter's latest answer, the controller's temperature (°C); undefined when there is nothing to send.
 */
export function meterValueOf(state: CoreState, context: SampleContext, timestamp: string): MeterValue | undefined {
  const values: SampledValue[] = [];
  const add = (v: SampledValue) => values.push({ context, location: 'Outlet', ...v });
  if (state.meter) {
    add({ value: String(state.meter.energyWh), measurand: 'Energy.Active.Import.Register', unit: 'Wh' });
    add({ value: String(state.meter.powerW), measurand: 'Power.Active.Import', unit: 'W' });
    state.meter.currentsA.forEach((a, i) => add({ value: String(a), measurand: 'Current.Import', phase: `L${i + 1}`, unit: 'A' }));
  }
  if (state.system.ambientTemp !== undefined) add({ value: String(state.system.ambientTemp), measurand: 'Temperature', unit: 'Celsius', location: 'Body' });
  return values.length ? { timestamp, sampledValue: values } : undefined;
}
