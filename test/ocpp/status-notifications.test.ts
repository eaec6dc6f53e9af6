import { expect, test } from 'vitest';
import { KNOWN } from '../charging/scenario.js';
import type { RawCentralSystem } from './raw-central-system.js';
import { useRawChargers } from './raw-charger.js';
import { until } from './support.js';

const { charger } = useRawChargers();

/** Issue 29 item 6: the charge point sends the statuses asked for, and only the final one of a scheduled change. */

const statuses = (cs: RawCentralSystem, connectorId: number) =>
  cs
    .calls('StatusNotification')
    .filter((p) => p.connectorId === connectorId)
    .map((p) => p.status as string);

test('TriggerMessage StatusNotification sends the connector asked for, both when none is named', async () => {
  const c = await charger();
  await c.online();
  const sent = () => c.cs.calls('StatusNotification').map((p) => p.connectorId as number);
  let before = sent().length;
  expect(await c.cs.call('TriggerMessage', { requestedMessage: 'StatusNotification', connectorId: 1 })).toEqual({ result: { status: 'Accepted' } });
  await until(c, () => sent().length > before, 'a StatusNotification');
  await c.step(100);
  expect(sent().slice(before)).toEqual([1]);
  before = sent().length;
  expect(await c.cs.call('TriggerMessage', { requestedMessage: 'StatusNotification', connectorId: 0 })).toEqual({ result: { status: 'Accepted' } });
  await until(c, () => sent().length > before, 'a StatusNotification');
  await c.step(100);
  expect(sent().slice(before)).toEqual([0]);
  before = sent().length;
  expect(await c.cs.call('TriggerMessage', { requestedMessage: 'StatusNotification' })).toEqual({ result: { status: 'Accepted' } });
  await until(c, () => sent().length === before + 2, 'both StatusNotifications');
  expect(sent().slice(before)).toEqual([0, 1]);
});

test('a scheduled Inoperative reports only the final status when the transaction ends', async () => {
  const c = await charger();
  await c.online();
  await c.act('plug');
  await c.tag(KNOWN);
  await c.act('charge');
  await until(c, () => statuses(c.cs, 1).at(-1) === 'Charging', 'Charging');
  expect(await c.cs.call('ChangeAvailability', { connectorId: 0, type: 'Inoperative' })).toEqual({ result: { status: 'Scheduled' } });
  const before = statuses(c.cs, 1).length;
  await c.act('unplug'); // the transaction ends (EVDisconnected): Available would follow, but Inoperative is due
  await until(c, () => c.cs.calls('StopTransaction').length === 1, 'StopTransaction');
  await until(c, () => statuses(c.cs, 1).at(-1) === 'Unavailable', 'Unavailable');
  await c.step(1_000);
  expect(statuses(c.cs, 1).slice(before)).toEqual(['Unavailable']);
  expect(statuses(c.cs, 0).at(-1)).toBe('Unavailable');
  expect((await c.api('GET', '/v1/settings?params=ChargingEnabled')).json.params[0].ChargingEnabled.value).toBe(0);
});
