import { expect, test } from 'vitest';
import { KNOWN } from '../charging/scenario.js';
import { useRawChargers } from './raw-charger.js';
import { until } from './support.js';

const { charger } = useRawChargers();

const EVCC_MEASURANDS = 'Power.Active.Import,Energy.Active.Import.Register,Current.Import,Voltage,Current.Offered,Power.Offered';

/** The measurands of a MeterValues call, each once. */
const measurandsOf = (call: Record<string, any>) => [...new Set<string>(call.meterValue[0].sampledValue.map((s: any) => s.measurand))];

/**
 * Issue 29 item 5: evcc's connection sequence, as evcc (the energy manager) plays it against the charge point, from
 * an independent central system: it reads the keys it needs, sets the measurands it wants and the intervals,
 * triggers BootNotification and MeterValues, and limits the current with a TxDefaultProfile.
 */
test('evcc configures the charge point: measurands, intervals, triggers, a TxDefaultProfile', async () => {
  const c = await charger();
  await c.online();
  const { cs } = c;
  const ok = async (action: string, payload: Record<string, unknown>) => {
    const outcome = await cs.call(action, payload);
    if ('error' in outcome) throw new Error(`${action}: ${JSON.stringify(outcome.error)}`);
    return outcome.result;
  };

  const asked = [
    'ChargeProfileMaxStackLevel',
    'ChargingScheduleAllowedChargingRateUnit',
    'ConnectorSwitch3to1PhaseSupported',
    'MeterValuesSampledData',
    'MeterValuesSampledDataMaxLength',
    'NumberOfConnectors',
    'SupportedFeatureProfiles',
  ];
  const { configurationKey, unknownKey } = await ok('GetConfiguration', { key: asked });
  expect(unknownKey).toBeUndefined();
  expect(Object.fromEntries(configurationKey.map((k: any) => [k.key, k.value]))).toMatchObject({
    ChargeProfileMaxStackLevel: '10',
    ChargingScheduleAllowedChargingRateUnit: 'Current,Power',
    ConnectorSwitch3to1PhaseSupported: 'false',
    MeterValuesSampledDataMaxLength: '7',
    NumberOfConnectors: '1',
    SupportedFeatureProfiles: expect.stringContaining('SmartCharging'),
  });
  expect(configurationKey.find((k: any) => k.key === 'MeterValuesSampledData').readonly).toBe(false);

  expect(await ok('ChangeConfiguration', { key: 'MeterValuesSampledData', value: EVCC_MEASURANDS })).toEqual({ status: 'Accepted' });
  expect(await ok('ChangeConfiguration', { key: 'MeterValueSampleInterval', value: '10' })).toEqual({ status: 'Accepted' });
  expect(await ok('ChangeConfiguration', { key: 'WebSocketPingInterval', value: '30' })).toEqual({ status: 'Accepted' });

  expect(await ok('TriggerMessage', { requestedMessage: 'BootNotification' })).toEqual({ status: 'Accepted' });
  await until(c, () => cs.calls('BootNotification').length === 2, 'the triggered BootNotification');
  expect(await ok('TriggerMessage', { requestedMessage: 'MeterValues', connectorId: 1 })).toEqual({ status: 'Accepted' });
  await until(c, () => cs.calls('MeterValues').length === 1, 'the triggered MeterValues');
  // Exactly the measurands asked for (no Temperature), Voltage per phase included.
  expect(measurandsOf(cs.calls('MeterValues')[0]!).sort()).toEqual(EVCC_MEASURANDS.split(',').sort());
  expect(
    cs
      .calls('MeterValues')[0]!
      .meterValue[0].sampledValue.filter((s: any) => s.measurand === 'Voltage')
      .map((s: any) => [s.phase, s.value]),
  ).toEqual([
    ['L1-N', '230'],
    ['L2-N', '230'],
    ['L3-N', '230'],
  ]);

  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  await until(c, () => cs.calls('StartTransaction').length === 1, 'StartTransaction');
  const profile = {
    chargingProfileId: 1,
    stackLevel: 0,
    chargingProfilePurpose: 'TxDefaultProfile',
    chargingProfileKind: 'Relative',
    chargingSchedule: { chargingRateUnit: 'A', chargingSchedulePeriod: [{ startPeriod: 0, limit: 10 }] },
  };
  expect(await ok('SetChargingProfile', { connectorId: 1, csChargingProfiles: profile })).toEqual({ status: 'Accepted' });
  await c.step(0);
  expect((await c.view()).plant.pwmCurrentA).toBe(10);
  const before = cs.calls('MeterValues').length;
  await c.step(10_000);
  await until(c, () => cs.calls('MeterValues').length > before, 'a sampled MeterValues');
  const sampled = cs.calls('MeterValues').at(-1)!.meterValue[0].sampledValue;
  expect(sampled.find((s: any) => s.measurand === 'Current.Offered')).toMatchObject({ value: '10', unit: 'A', context: 'Sample.Periodic' });
  expect(sampled.find((s: any) => s.measurand === 'Power.Offered')).toMatchObject({ value: String(10 * 230 * 3), unit: 'W' });
  expect(measurandsOf(cs.calls('MeterValues').at(-1)!).sort()).toEqual(EVCC_MEASURANDS.split(',').sort());
});
