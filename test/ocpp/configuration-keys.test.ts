import { expect, test } from 'vitest';
import { KNOWN } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { startRawCentralSystem } from './raw-central-system.js';
import { useRawChargers } from './raw-charger.js';
import { until } from './support.js';

const { charger, stop } = useRawChargers();

/** Issue 29 items 4, 5 and 6 (the heartbeat interval), from an independent central system. */

const keysOf = async (c: Awaited<ReturnType<typeof charger>>, key?: string[]) => {
  const outcome = await c.cs.call('GetConfiguration', key ? { key } : {});
  if (!('result' in outcome)) throw new Error(JSON.stringify(outcome));
  return Object.fromEntries(outcome.result.configurationKey.map((k: any) => [k.key, { value: k.value, readonly: k.readonly }]));
};
const change = async (c: Awaited<ReturnType<typeof charger>>, key: string, value: string) => {
  const outcome = await c.cs.call('ChangeConfiguration', { key, value });
  return 'result' in outcome ? outcome.result.status : outcome.error.code;
};

test('ResetRetries is listed; the OCPP 1.6 read-write keys are writable, checked, and survive a restart', async () => {
  let c = await charger();
  await c.online();
  const all = await keysOf(c);
  expect(all.ResetRetries).toEqual({ value: '0', readonly: true });
  for (const key of [
    'MeterValuesSampledData',
    'MeterValuesAlignedData',
    'StopTxnSampledData',
    'StopTxnAlignedData',
    'StopTransactionOnEVSideDisconnect',
    'UnlockConnectorOnEVSideDisconnect',
    'ConnectorPhaseRotation',
  ]) {
    expect(all[key]?.readonly, key).toBe(false);
  }
  // Unsupported measurands, values the charge point cannot do, malformed lists: Rejected, nothing changed.
  expect(await change(c, 'MeterValuesSampledData', 'Energy.Active.Import.Register,SoC')).toBe('Rejected');
  expect(await change(c, 'MeterValuesAlignedData', 'Frequency')).toBe('Rejected');
  expect(await change(c, 'StopTxnSampledData', 'Power.Active.Import')).toBe('Rejected');
  expect(await change(c, 'StopTxnAlignedData', 'Energy.Active.Import.Register')).toBe('Rejected');
  expect(await change(c, 'StopTransactionOnEVSideDisconnect', 'false')).toBe('Rejected');
  expect(await change(c, 'UnlockConnectorOnEVSideDisconnect', 'false')).toBe('Rejected');
  expect(await change(c, 'ConnectorPhaseRotation', '1.XYZ')).toBe('Rejected');
  expect((await keysOf(c, ['MeterValuesSampledData'])).MeterValuesSampledData!.value).toBe(all.MeterValuesSampledData!.value);

  expect(await change(c, 'MeterValuesSampledData', 'Energy.Active.Import.Register,Voltage')).toBe('Accepted');
  expect(await change(c, 'MeterValuesAlignedData', 'Energy.Active.Import.Register')).toBe('Accepted');
  expect(await change(c, 'StopTxnSampledData', '')).toBe('Accepted');
  expect(await change(c, 'StopTransactionOnEVSideDisconnect', 'true')).toBe('Accepted');
  expect(await change(c, 'ConnectorPhaseRotation', '0.RST,1.RST')).toBe('Accepted');

  // The values are in effect: sampled values follow the list; StopTransaction without transactionData.
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  await until(c, () => c.cs.calls('StartTransaction').length === 1, 'StartTransaction');
  expect(await c.cs.call('TriggerMessage', { requestedMessage: 'MeterValues' })).toEqual({ result: { status: 'Accepted' } });
  await until(c, () => c.cs.calls('MeterValues').length === 1, 'MeterValues');
  expect(new Set(c.cs.calls('MeterValues')[0]!.meterValue[0].sampledValue.map((s: any) => s.measurand))).toEqual(
    new Set(['Energy.Active.Import.Register', 'Voltage']),
  );
  await c.tag(KNOWN);
  await until(c, () => c.cs.calls('StopTransaction').length === 1, 'StopTransaction');
  expect(c.cs.calls('StopTransaction')[0]!.transactionData).toBeUndefined();

  // A restart keeps them.
  const { cs, clock, dataDir } = c;
  await stop(c);
  c = await charger({ cs, clock, dataDir });
  await c.online();
  const after = await keysOf(c, ['MeterValuesSampledData', 'MeterValuesAlignedData', 'StopTxnSampledData', 'ConnectorPhaseRotation']);
  expect(Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v.value]))).toEqual({
    MeterValuesSampledData: 'Energy.Active.Import.Register,Voltage',
    MeterValuesAlignedData: 'Energy.Active.Import.Register',
    StopTxnSampledData: '',
    ConnectorPhaseRotation: '0.RST,1.RST',
  });
});

test('HeartbeatInterval: one rule for ChangeConfiguration and the BootNotification answer', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const cs = await startRawCentralSystem({ now: () => clock.now() });
  cs.answer('BootNotification', () => ({ status: 'Accepted', currentTime: new Date(clock.now()).toISOString(), interval: 5 }));
  const c = await charger({ cs, clock });
  await c.online();
  expect(await change(c, 'HeartbeatInterval', '5')).toBe('Rejected');
  // The 5 s of the answer are refused the same way: the heartbeat keeps to the range's minimum.
  const beats = () => cs.calls('Heartbeat').length;
  await c.step(5_000);
  await c.step(5_000);
  await c.step(0);
  expect(beats()).toBe(0);
  await c.step(19_000);
  expect(beats()).toBe(0);
  await c.step(1_000);
  await until(c, () => beats() === 1, 'a heartbeat after 30 s');
});
