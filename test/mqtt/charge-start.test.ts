import { describe, expect, test } from 'vitest';
import { KNOWN } from '../charging/scenario.js';
import { useRawChargers } from '../ocpp/raw-charger.js';
import { until as untilOn } from '../ocpp/support.js';
import { BROKER_KIND } from './broker.js';
import { c, command, connect, o, patch, proxy, t, useMqttTestbed, waitTopic } from './support.js';

/**
 * Issue 29: `Charge` 1 over MQTT starts a charge without a tag (services/charge-control.ts start, the charge cycle's
 * AUTHORIZE), against a real broker; the central system it reports to is the independent one of
 * test/ocpp/raw-central-system.ts.
 */

useMqttTestbed();
const { charger } = useRawChargers();
const AUTH_TIMEOUT_MS = 30_000;

describe(`starting a charge over MQTT against ${BROKER_KIND}`, () => {
  test('plugged in: the transaction starts at once, without a tag; only a stop command ends it, a tag does not', async () => {
    await connect({ MqttControl: 1 });
    await c.act('plug');
    expect((await c.state()).systemState).toBe('wait_for_auth');
    let from = o.messages.length;
    expect(await command('Charge', '{"value": 1, "id": "s1"}')).toEqual({ command: 'Charge', id: 's1', success: true, value: 1 });
    await waitTopic('transactionActive', '1', from);
    const started = await c.state();
    expect(started).toMatchObject({ systemState: 'connected', authState: 'authorized_for_charging', ocppState: 'suspendedev' });
    expect(started.transaction).not.toHaveProperty('tagId');
    expect(await command('Charge', '1')).toMatchObject({ success: false, cause: 'A charge is already running' });

    await c.act('charge');
    expect((await c.state()).systemState).toBe('charging');
    await c.step(10_000);
    // A whitelisted tag is not this session's: it does not stop it.
    await c.tag(KNOWN);
    expect((await c.state()).transaction.transactionId).toBe(started.transaction.transactionId);

    from = o.messages.length;
    expect(await command('Charge', '0')).toMatchObject({ success: true });
    await waitTopic('transactionActive', '0', from);
    // Stopped under load: until the contactor opened, nothing starts.
    expect(await command('Charge', '1')).toMatchObject({
      success: false,
      cause: 'The last charge is still stopping: start again once the contactor has opened',
    });
    await c.step(6_000);
    const [done] = (await c.api('GET', '/v1/transactions')).json;
    expect(done.transactionId).toBe(started.transaction.transactionId);
    expect(done).not.toHaveProperty('tagId');
    expect(done.consumption).toBeGreaterThan(0);

    // Finished, the vehicle still connected: a new start begins a new transaction, as a tag would.
    from = o.messages.length;
    expect(await command('Charge', '1')).toMatchObject({ success: true });
    await waitTopic('transactionActive', '1', from);
    expect((await c.state()).transaction.transactionId).not.toBe(started.transaction.transactionId);
  });

  test('before plug-in: held for the authorization timeout like a tag, then expired; a start in time charges', async () => {
    await connect({ MqttControl: 1 });
    expect(await command('Charge', '1')).toMatchObject({ success: true });
    expect(await c.state()).toMatchObject({ systemState: 'idle', authState: 'authorized_for_charging', ocppState: 'preparing' });
    await c.step(AUTH_TIMEOUT_MS);
    expect(await c.state()).toMatchObject({ systemState: 'idle', authState: 'auth_timeout' });
    await c.act('plug');
    expect((await c.state()).systemState).toBe('wait_for_auth');
    await c.act('unplug');

    expect(await command('Charge', '1')).toMatchObject({ success: true });
    await c.step(AUTH_TIMEOUT_MS - 1_000);
    await c.act('plug');
    await c.act('charge');
    const state = await c.state();
    expect(state.systemState).toBe('charging');
    expect(state.transaction).not.toHaveProperty('tagId');
  });

  test('refused with charging disabled and during a fault; nothing changes', async () => {
    await connect({ MqttControl: 1 });
    await c.act('plug');
    await patch({ ChargingEnabled: 0 });
    expect(await command('Charge', '1')).toMatchObject({ success: false, cause: 'No charge can start: charging is disabled (setting ChargingEnabled)' });
    await patch({ ChargingEnabled: 1 });
    expect((await c.state()).systemState).toBe('wait_for_auth');

    await c.sim('fault', { fault: 'cp-short' });
    await c.step(50);
    expect((await c.state()).systemState).toBe('error');
    expect(await command('Charge', '1')).toMatchObject({ success: false, cause: expect.stringMatching(/^No charge can start during a fault: /) });
    await c.h.http('DELETE', '/sim/fault/cp-short');
    await c.step(50);
    expect(await c.state()).toMatchObject({ systemState: 'wait_for_auth', authState: 'wait_for_auth' });
    expect((await c.api('GET', '/v1/transactions')).json).toEqual([]);
  });

  test('the central system receives a valid StartTransaction: the idTag of a charge without a tag', async () => {
    const cp = await charger({ settings: { MqttEnabled: 1, MqttUrl: proxy.url, MqttControl: 1 } });
    await cp.online();
    await cp.act('plug');
    await o.waitFor((m) => m.topic === t('pluggedIn') && m.payload === '1', { what: 'pluggedIn = 1' });
    const from = o.messages.length;
    await o.publish(t('set/Charge'), '1');
    await o.waitFor((m) => m.topic === t('result') && JSON.parse(m.payload).success === true, { from, what: 'the start accepted' });
    await untilOn(cp, () => cp.cs.calls('StartTransaction').length === 1, 'StartTransaction');
    const [start] = cp.cs.calls('StartTransaction');
    expect(start).toMatchObject({ connectorId: 1, idTag: 'FreeCharging' });
    expect(start!.idTag.length).toBeLessThanOrEqual(20);
    await untilOn(cp, async () => (await cp.state()).transaction?.backendTransactionId, 'the backend transaction id');
    expect(cp.cs.invalid).toEqual([]);
  });
});
