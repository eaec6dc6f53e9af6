import { describe, expect, test } from 'vitest';
import { backoffMs } from '../../machines/mqtt.js';
import { KNOWN } from '../charging/scenario.js';
import { BROKER_KIND, BROKER_PASSWORD, BROKER_USER, observe, retained } from './broker.js';
import { BASE, broker, c, command, connect, json, mqttState, o, patch, proxy, replaceObserver, t, until, useMqttTestbed, waitTopic } from './support.js';

/** The MQTT link against a real broker (test/mqtt/support.ts): state, commands, load limit, connection, settings. */

useMqttTestbed();

describe(`MQTT against ${BROKER_KIND}`, () => {
  test('a full charge: every state at once, meter values once per interval, the JSON state, transaction and duration', async () => {
    await connect();
    expect(o.last(t('status'))).toBe('online');
    expect(o.last(t('systemState'))).toBe('idle');
    expect(o.last(t('transactionActive'))).toBe('0');
    // The broker stores a retained message after forwarding it (aedes: asynchronously): ask again until it has it.
    let kept = await retained(broker.url, `${BASE}/#`);
    for (let i = 0; i < 50 && !kept.has(t('state')); i++) kept = await retained(broker.url, `${BASE}/#`);
    expect(kept.get(t('status'))).toBe('online');
    expect(kept.get(t('systemState'))).toBe('idle');
    expect(JSON.parse(kept.get(t('state'))!).systemState).toBe('idle');

    let from = o.messages.length;
    await c.act('plug');
    await waitTopic('systemState', 'wait_for_auth', from);
    await c.tag(KNOWN);
    await waitTopic('transactionActive', '1', from);
    await c.act('charge');
    await waitTopic('systemState', 'charging', from);
    await waitTopic('ocppState', 'charging', from);
    await waitTopic('type2State', 'c', from);

    // Meter values: at most once per interval (10 s by default), however often the meter is read (every second).
    from = o.messages.length;
    for (let s = 0; s < 31; s++) await c.step(1_000);
    await until('three meter publications', () => o.messages.slice(from).filter((m) => m.topic === t('transactionDuration')).length >= 3);
    const durations = o.messages
      .slice(from)
      .filter((m) => m.topic === t('transactionDuration'))
      .map((m) => Number(m.payload));
    expect(durations.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < durations.length; i++) expect(durations[i]! - durations[i - 1]!).toBe(10);
    // A value is published when it changed (the simulated vehicle draws a constant power).
    expect(o.messages.slice(from).filter((m) => m.topic === t('power')).length).toBeLessThanOrEqual(durations.length);
    expect(Number(o.last(t('power')))).toBeGreaterThan(3_000);
    expect(Number(o.last(t('sessionEnergy')))).toBeGreaterThan(0);
    expect(Number(o.last(t('meterEnergy')))).toBeGreaterThan(0);
    expect(Number(o.last(t('currentL1')))).toBeGreaterThan(5);
    expect(Number(o.last(t('voltageL1')))).toBe(230); // the simulated meter's phase voltage
    expect(Number(o.last(t('temperature')))).toBeGreaterThan(0);

    const state = JSON.parse(o.last(t('state'))!);
    const api = await c.state();
    expect(state).toMatchObject({
      systemState: 'charging',
      authState: api.authState,
      ocppState: 'charging',
      type2State: 'c',
      transactionActive: true,
      chargingEnabled: true,
      maxCurrent: 16,
      loadLimit: null,
      loadLimitState: 'off',
      messages: [],
      transaction: { transactionId: api.transaction.transactionId, transactionStart: api.transaction.transactionStart },
    });
    expect(state.transactionDuration).toBe(durations.at(-1));
    expect(state).not.toHaveProperty('tagId');

    // A change of the interval takes effect at once.
    await patch({ MqttInterval: 2 });
    from = o.messages.length;
    for (let s = 0; s < 6; s++) await c.step(1_000);
    await o.waitFor((m) => m.topic === t('transactionDuration') && Number(m.payload) >= durations.at(-1)! + 6, { from, what: 'the duration 6 s later' });

    from = o.messages.length;
    await c.act('unplug');
    await waitTopic('systemState', 'idle', from);
    await waitTopic('transactionActive', '0', from);
    await o.waitFor((m) => m.topic === t('state') && json(m).transaction === null, { from });
  });

  test('commands: refused while control is off; validated like PATCH /v1/settings; carried out and answered', async () => {
    await connect();
    expect(await command('MaxCurrent', '10')).toEqual({ command: 'MaxCurrent', success: false, cause: 'Control over MQTT is off (setting MqttControl)' });
    expect((await c.api('GET', '/v1/settings?params=MaxCurrent')).json.params[0].MaxCurrent).toBe(16);

    await patch({ MqttControl: 1 });
    const from = o.messages.length;
    expect(await command('MaxCurrent', '10')).toEqual({ command: 'MaxCurrent', success: true, value: 10 });
    expect((await c.api('GET', '/v1/settings?params=MaxCurrent')).json.params[0].MaxCurrent).toBe(10);
    await waitTopic('maxCurrent', '10', from);

    // The same reason as the API's, and nothing changes.
    const refusedByApi = await c.api('PATCH', '/v1/settings', { params: [{ key: 'MaxCurrent', value: 40 }] });
    expect(refusedByApi.status).toBe(400);
    expect(await command('MaxCurrent', '40')).toEqual({ command: 'MaxCurrent', success: false, cause: `"MaxCurrent" ${refusedByApi.json.params[0].cause}` });
    expect(await command('MaxCurrent', '10.5')).toMatchObject({ success: false, cause: '"MaxCurrent" must be an integer' });
    expect(await command('ChargingEnabled', '2')).toMatchObject({
      success: false,
      cause: expect.stringContaining('"ChargingEnabled" must be one of 0 (Off), 1 (On)'),
    });
    expect(await command('MaxCurrent', 'ten')).toMatchObject({ success: false, cause: 'The payload must be a JSON value, such as 16 or 1' });
    expect(await command('MaxCurrent', '1'.repeat(600))).toMatchObject({ success: false, cause: 'The payload is longer than 512 bytes' });
    expect(await command('Phases', '1')).toMatchObject({ success: false, cause: expect.stringContaining('Unknown command "Phases"') });
    expect(await command('LoadLimit', '10')).toMatchObject({ success: false, cause: 'Load limits over MQTT are off (setting MqttLoadManagement)' });
    expect((await c.api('GET', '/v1/settings?params=MaxCurrent,ChargingEnabled')).json.params).toEqual([
      { MaxCurrent: 10 },
      { ChargingEnabled: { value: 1, label: 'On' } },
    ]);

    // The charge cycle follows: the PWM announces 10 A; disabling ends the charge.
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    expect((await c.view()).plant.pwmCurrentA).toBeCloseTo(10, 1);
    expect(await command('ChargingEnabled', '{"value": 0}')).toEqual({ command: 'ChargingEnabled', success: true, value: 0 });
    await waitTopic('systemState', 'unavailable', from);
    await waitTopic('chargingEnabled', '0', from);
    expect((await c.state()).systemState).toBe('unavailable');
    expect(await command('ChargingEnabled', '1')).toMatchObject({ success: true });
    await waitTopic('chargingEnabled', '1', from);
  });

  test('a load limit over MQTT: fallback until the first, fresh while refreshed, fallback when stale, gone when turned off', async () => {
    await connect({ MqttControl: 1, MqttLoadManagement: 1, MqttLoadLimitTimeout: 60, MqttLoadLimitFallback: 8 });
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    const pwm = async () => (await c.view()).plant.pwmCurrentA as number;
    // No limit received yet: the fallback applies (a start never runs at full power with load management on).
    expect(mqttState().loadLimit).toBe('fallback');
    expect(await pwm()).toBeCloseTo(8, 1);
    await waitTopic('loadLimitState', 'fallback');

    let from = o.messages.length;
    expect(await command('LoadLimit', '12')).toEqual({ command: 'LoadLimit', success: true, value: 12 });
    await c.step(2_000); // a rise follows the allocator's ramp: 2 A a second (docs/energy.md)
    expect(await pwm()).toBeCloseTo(12, 1);
    await waitTopic('loadLimit', '12', from);
    await waitTopic('loadLimitState', 'fresh', from);
    expect(await command('LoadLimit', '81')).toMatchObject({ success: false, cause: '"LoadLimit" must be from 0 to 80 A' });
    expect(await pwm()).toBeCloseTo(12, 1);

    // Refreshed within the 60 s it stays; 60 s after the last refresh it is stale.
    await c.step(50_000);
    expect(await command('LoadLimit', '12')).toMatchObject({ success: true });
    await c.step(59_999);
    expect(await pwm()).toBeCloseTo(12, 1);
    from = o.messages.length;
    await c.step(1);
    expect(mqttState().loadLimit).toBe('fallback');
    expect(await pwm()).toBeCloseTo(8, 1);
    await waitTopic('loadLimitState', 'fallback', from);
    await waitTopic('loadLimit', '8', from);

    // A limit below 6 A pauses the charge, as the simulator's load limit does.
    expect(await command('LoadLimit', '0')).toMatchObject({ success: true });
    expect((await c.state()).ocppState).toBe('suspendedevse');

    // Load management off: no limit from MQTT any more, the maximum current applies again.
    from = o.messages.length;
    await patch({ MqttLoadManagement: 0 });
    expect(mqttState().loadLimit).toBe('off');
    await c.step(5_000); // from the pause: 6 A, then the ramp
    expect(await pwm()).toBeCloseTo(16, 1);
    await waitTopic('loadLimitState', 'off', from);
    await waitTopic('loadLimit', 'None', from);

    // The fallback also holds while the broker is unreachable: a lost connection never keeps a stale limit.
    await patch({ MqttLoadManagement: 1 });
    expect(await command('LoadLimit', '20')).toMatchObject({ success: true });
    proxy.refuse(true);
    proxy.cut();
    await until('disconnected', () => mqttState().connection === 'waiting');
    await c.step(60_000);
    expect(await pwm()).toBeCloseTo(8, 1);
    proxy.refuse(false);
  });

  test('a lost connection: the broker publishes the Last Will, the controller reconnects with backoff and says online again', async () => {
    await connect();
    let from = o.messages.length;
    proxy.refuse(true);
    proxy.cut();
    await waitTopic('status', 'offline', from);
    expect((await retained(broker.url, t('status'))).get(t('status'))).toBe('offline');
    await until('waiting', () => mqttState().connection === 'waiting');

    // While the broker is unreachable the charge point works as ever.
    await c.act('plug');
    expect((await c.state()).systemState).toBe('wait_for_auth');

    // Backoff: 1 s, 2 s, 4 s … between attempts while they fail (the manual clock).
    const ctx = () => c.h.controller.inspector.view().actors.find((a) => a.systemId === 'mqtt')!.context as { failures: number };
    for (let failures = 1; failures <= 3; failures++) {
      expect(ctx().failures).toBe(failures);
      await c.step(backoffMs(failures) - 1);
      expect(mqttState().connection).toBe('waiting');
      await c.step(1);
      await until(`attempt ${failures + 1} failed`, () => mqttState().connection === 'waiting' && ctx().failures === failures + 1);
    }

    from = o.messages.length;
    proxy.refuse(false);
    await c.step(backoffMs(4));
    await until('connected again', () => mqttState().connection === 'connected');
    await waitTopic('status', 'online', from);
    await waitTopic('systemState', 'wait_for_auth', from);
    expect(ctx().failures).toBe(0);
  });

  test('a broker restart: retained state, status and discovery are published again after the reconnect', async () => {
    await connect();
    await o.end();
    await broker.restart();
    await until('waiting', () => mqttState().connection === 'waiting');
    replaceObserver(await observe(broker.url, ['#']));
    expect(o.messages).toEqual([]); // the restarted broker kept nothing
    await c.step(backoffMs(1));
    await until('connected again', () => mqttState().connection === 'connected');
    await waitTopic('status', 'online');
    await waitTopic('systemState', 'idle');
    await o.waitFor((m) => m.topic.endsWith('/system_state/config') && m.payload !== '');
    // A new observer sees them retained.
    const late = await observe(broker.url, ['#']);
    await late.waitFor((m) => m.topic === t('status') && m.payload === 'online' && m.retain);
    await late.waitFor((m) => m.topic === t('state') && m.retain);
    await late.end();
  });

  test('tag ids: never published by default; published when allowed, and cleared when no longer allowed', async () => {
    await connect();
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await waitTopic('systemState', 'charging');
    for (let s = 0; s < 12; s++) await c.step(1_000);
    expect(o.messages.filter((m) => m.payload.includes(KNOWN) || m.payload.includes(c.userId))).toEqual([]);

    let from = o.messages.length;
    await patch({ MqttPublishTagIds: 1 });
    await waitTopic('tagId', KNOWN, from);
    await waitTopic('userId', c.userId, from);
    await o.waitFor((m) => m.topic === t('state') && json(m).tagId === KNOWN, { from });
    await o.waitFor((m) => m.topic.endsWith('/tag_id/config') && JSON.parse(m.payload).state_topic === t('tagId'), { from });

    from = o.messages.length;
    await patch({ MqttPublishTagIds: 0 });
    await waitTopic('tagId', '', from);
    await waitTopic('userId', '', from);
    const kept = await retained(broker.url, `${BASE}/#`);
    expect(kept.has(t('tagId'))).toBe(false);
    expect(kept.has(t('userId'))).toBe(false);
    await o.waitFor((m) => m.topic.endsWith('/tag_id/config') && m.payload === '', { from });
    await o.waitFor((m) => m.topic === t('state') && !('tagId' in json(m)), { from });
  });

  test('user, write-only password, client id, base topic, QoS and retain; a wrong password is refused by the broker', async () => {
    await patch({
      MqttUsername: BROKER_USER,
      MqttPassword: 'wrong-password-1',
      MqttClientId: 'wallbox-garage',
      MqttBaseTopic: 'home/garage/wallbox',
      MqttQos: 2,
      MqttRetain: 0,
    });
    await patch({ MqttEnabled: 1, MqttUrl: proxy.url });
    await until('refused', () => mqttState().connection === 'waiting');
    expect(c.h.logs.join('')).toMatch(/MQTT: connection failed/);

    const from = o.messages.length;
    await patch({ MqttPassword: BROKER_PASSWORD });
    await until('connected', () => mqttState().connection === 'connected');
    // (aedes 1.2 does not forward a retained QoS 2 message to present subscribers, only to later ones: the status is
    // checked as a later subscriber gets it.)
    const state = await o.waitFor((m) => m.topic === 'home/garage/wallbox/state', { from });
    expect(state.qos).toBe(2);
    let kept = await retained(broker.url, 'home/#');
    expect(kept.get('home/garage/wallbox/status')).toBe('online');
    expect(kept.has('home/garage/wallbox/systemState')).toBe(false); // retain off

    // The password is write-only: the API never shows it, only whether one is set.
    const field = (await c.api('GET', '/v1/settings')).json.groups
      .flatMap((g: any) => g.sub_groups.flatMap((sg: any) => sg.fields))
      .find((f: any) => f.key === 'MqttPassword');
    expect(field).toMatchObject({ value: '', default: '', writeOnly: 1, isSet: 1, type: 'string' });
    expect((await c.api('GET', '/v1/settings?params=MqttPassword')).json).toEqual({ params: [{ MqttPassword: '' }] });
    const inspector = JSON.stringify(c.h.controller.inspector.view());
    expect(inspector).not.toContain(BROKER_PASSWORD);
    // Nor does the log, the wrong one included.
    expect(c.h.logs.join('')).not.toContain(BROKER_PASSWORD);
    expect(c.h.logs.join('')).not.toContain('wrong-password-1');

    // The broker saw the client id (aedes reports it; mosquitto's observer cannot ask: the connection is checked).
    expect(c.h.controller.mqtt.state()).toMatchObject({ connection: 'connected' });

    // Retain switched on: the values are published retained now.
    const from2 = o.messages.length;
    await patch({ MqttRetain: 1 });
    await o.waitFor((m) => m.topic === 'home/garage/wallbox/state', { from: from2 });
    // (The state seen may still be the first connection's, not retained: ask until the broker keeps the new one.)
    kept = await retained(broker.url, 'home/#');
    for (let i = 0; i < 50 && !kept.has('home/garage/wallbox/state'); i++) kept = await retained(broker.url, 'home/#');
    expect(kept.get('home/garage/wallbox/systemState')).toBe('idle');

    // Base topic changed: the old status says offline, the old announcement is withdrawn, the new one announced.
    const from3 = o.messages.length;
    await patch({ MqttBaseTopic: 'home/wallbox2' });
    await o.waitFor((m) => m.topic === 'home/garage/wallbox/status' && m.payload === 'offline', { from: from3 });
    await o.waitFor((m) => m.topic === 'home/wallbox2/status' && m.payload === 'online', { from: from3 });
    await o.waitFor((m) => m.topic.endsWith('/power/config') && m.payload.includes('home/wallbox2/power'), { from: from3 });
  });

  test('retain switched off leaves no retained value behind: the clears are never replaced, also across a reconnect', async () => {
    await connect();
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await waitTopic('systemState', 'charging');
    for (let s = 0; s < 11; s++) await c.step(1_000);
    // A round trip: everything queued before the answer is out. A changed MqttRetain reconnects the client, and a
    // command sent before its subscription is back is lost (not retained): sent again until answered.
    const roundTrip = async () => {
      for (let attempt = 1; ; attempt++) {
        const from = o.messages.length;
        await o.publish(t('set/Nothing'), '1');
        try {
          await o.waitFor((m) => m.topic === t('result') && json(m).command === 'Nothing', { from, timeoutMs: 1_000, what: 'the result of Nothing' });
          return;
        } catch (err) {
          if (attempt === 10) throw err;
        }
      }
    };
    const valueTopics = () => [...(kept ?? new Map()).keys()].filter((k) => k !== t('status'));
    let kept: Map<string, string> | undefined = await retained(broker.url, `${BASE}/#`);
    for (let i = 0; i < 50 && !kept.has(t('power')); i++) kept = await retained(broker.url, `${BASE}/#`);
    expect(valueTopics().length).toBeGreaterThan(15);

    // Off: every retained value is cleared, though the values are published afresh (not retained) at once.
    await patch({ MqttRetain: 0 });
    await roundTrip();
    for (let i = 0; i < 50; i++) {
      kept = await retained(broker.url, `${BASE}/#`);
      if (valueTopics().length === 0) break;
    }
    expect(valueTopics()).toEqual([]);
    expect(kept.get(t('status'))).toBe('online');

    // Retain on, and switched off while the broker is unreachable: the clears go out on the next connection.
    await patch({ MqttRetain: 1 });
    await roundTrip();
    for (let i = 0; i < 50 && !kept.has(t('power')); i++) kept = await retained(broker.url, `${BASE}/#`);
    expect(kept.has(t('power'))).toBe(true);
    proxy.refuse(true);
    proxy.cut();
    await until('disconnected', () => mqttState().connection === 'waiting');
    await patch({ MqttRetain: 0 });
    proxy.refuse(false);
    await c.step(backoffMs(1));
    await until('connected again', () => mqttState().connection === 'connected');
    await roundTrip();
    for (let i = 0; i < 50; i++) {
      kept = await retained(broker.url, `${BASE}/#`);
      if (valueTopics().length === 0) break;
    }
    expect(valueTopics()).toEqual([]);
  });

  test('mqtts://: TLS with the broker certificate checked against MQTT_CA_FILE', async () => {
    await patch({ MqttEnabled: 1, MqttUrl: broker.tlsUrl });
    await until('connected over TLS', () => mqttState().connection === 'connected');
    await waitTopic('status', 'online');
  });

  test('bad settings are refused with the reason and change nothing', async () => {
    const res = await c.api('PATCH', '/v1/settings', {
      params: [
        { key: 'MqttUrl', value: 'mqtt://user:pw@broker' },
        { key: 'MqttBaseTopic', value: 'a/+/b' },
        { key: 'MqttQos', value: 3 },
        { key: 'MqttInterval', value: 0 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.json.params.map((p: any) => p.cause !== undefined)).toEqual([true, true, true, true]);
    for (const url of ['http://broker', 'mqtt://broker/path', 'mqtt://broker:70000', 'mqtt://a b']) {
      expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'MqttUrl', value: url }] })).status, url).toBe(400);
    }
    for (const url of ['', 'mqtt://broker', 'mqtts://broker.local:8883', 'mqtt://[fd00::1]:1883', 'mqtt://192.168.1.10/']) {
      expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'MqttUrl', value: url }] })).status, url).toBe(200);
    }
    expect(mqttState().connection).toBe('disabled');
  });
});
