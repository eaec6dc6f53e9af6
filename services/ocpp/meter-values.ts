import type { CoreState } from '../core/protocol.js';
import { NOMINAL_VOLTAGE } from './smart-charging.js';
import type { Measurand } from './stored-keys.js';

/** OCPP 1.6 MeterValue: sampledValue entries of one reading. */
export type SampledValue = { value: string; context?: string; measurand?: string; phase?: string; unit?: string; location?: string };
export type MeterValue = { timestamp: string; sampledValue: SampledValue[] };
export type SampleContext = 'Sample.Periodic' | 'Sample.Clock' | 'Trigger';

/**
 * One reading as an OCPP MeterValue, from the core's state, of the measurands asked for (MeterValuesSampledData or
 * MeterValuesAlignedData): the energy register (Wh), power (W), current and voltage per phase of the meter's latest
 * answer, the current the PWM offers the car after every limit (A) and the power that allows (W, at the meter's
 * voltage, else 230 V, on `phases`), the controller's temperature (°C); undefined when there is nothing to send.
 */
export function meterValueOf(
  state: CoreState,
  context: SampleContext,
  timestamp: string,
  measurands: readonly Measurand[],
  phases: number,
): MeterValue | undefined {
  const values: SampledValue[] = [];
  const add = (v: SampledValue) => values.push({ context, location: 'Outlet', ...v });
  const meter = state.meter;
  const offeredA = state.outputs.pwmA ?? 0;
  const voltages = meter?.voltagesV ?? [];
  const volts = voltages.length ? voltages.reduce((a, b) => a + b, 0) / voltages.length : NOMINAL_VOLTAGE;
  for (const measurand of measurands) {
    switch (measurand) {
      case 'Energy.Active.Import.Register':
        if (meter) add({ value: String(meter.energyWh), measurand, unit: 'Wh' });
        break;
      case 'Power.Active.Import':
        if (meter) add({ value: String(meter.powerW), measurand, unit: 'W' });
        break;
      case 'Current.Import':
        meter?.currentsA.forEach((a, i) => add({ value: String(a), measurand, phase: `L${i + 1}`, unit: 'A' }));
        break;
      case 'Voltage':
        voltages.forEach((v, i) => add({ value: String(v), measurand, phase: `L${i + 1}-N`, unit: 'V' }));
        break;
      case 'Current.Offered':
        add({ value: String(offeredA), measurand, unit: 'A' });
        break;
      case 'Power.Offered':
        add({ value: String(Math.round(offeredA * volts * phases)), measurand, unit: 'W' });
        break;
      case 'Temperature':
        if (state.system.ambientTemp !== undefined) add({ value: String(state.system.ambientTemp), measurand, unit: 'Celsius', location: 'Body' });
        break;
    }
  }
  return values.length ? { timestamp, sampledValue: values } : undefined;
}
