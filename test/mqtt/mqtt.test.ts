import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { backoffMs } from '../../machines/mqtt.js';
import { ENTITIES } from '../../services/mqtt/discovery.js';
import { KNOWN, startCharger, type Charger } from '../charging/scenario.js';
import {
  BROKER_KIND,
  BROKER_PASSWORD,
  BROKER_USER,
  observe,
  retained,
  startBroker,
  startProxy,
  TLS_CA_FILE,
  type Observer,
  type Proxy,
  type Received,
  type TestBroker,
} from './broker.js';

/**
 * The MQTT link against a real broker on a real TCP port: aedes in this process by default, Debian's mosquitto with
 * MQTT_TEST_BROKER=mosquitto (.ci/run). The controller reaches the broker through a TCP proxy (its "network": cut
 * and refused at will); the test observes the broker directly. Intervals, backoff and the load limit's refresh time
 * run on the manual clock; the test waits for the messages themselves.
 */

const BASE = 'charge-controller';
let broker: TestBroker;
let proxy: Proxy;
let c: Charger;
let o: Observer;
/** Every message the observers saw in this file (checked for secrets at the end). */
const everything: Received[] = [];

beforeAll(async () => {
  broker = await startBroker();
});
afterAll(async () => {
  await broker.stop();
});

beforeEach(async () => {
  proxy = await startProxy(broker.port);
  c = await startCharger({ env: { MQTT_CA_FILE: TLS_CA_FILE } });
  o = await observe(broker.url, ['#']);
});
afterEach(async () => {
  everything.push(...o.messages);
  await o.end();
  await c.h.stop();
  await proxy.close();
  // Retained messages of one test must not be seen by the next.
  const kept = await retained(broker.url, '#');
  const cleaner = await observe(broker.url, []);
  for (const topic of kept.keys()) await cleaner.publish(topic, '', { retain: true });
  await cleaner.end();
});

const mqttState = () => c.h.controller.mqtt.state() as { connection: string; meter: string; loadLimit: string };

async function until(what: string, cond: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}; MQTT actor: ${JSON.stringify(mqttState())}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function patch(params: Record<string, unknown>, expected = 200) {
  const res = await c.api('PATCH', '/v1/settings', { params: Object.entries(params).map(([key, value]) => ({ key, value })) });
  expect(res.status, res.text).toBe(expected);
  await c.step(0);
  return res;
}

/** MQTT on, through the proxy; resolves once connected and the state is out. */
async function connect(extra: Record<string, unknown> = {}) {
  const from = o.messages.length;
  await patch({ MqttEnabled: 1, MqttUrl: proxy.url, ...extra });
  await until('connected', () => mqttState().connection === 'connected');
  await o.waitFor((m) => m.topic === `${BASE}/state`, { from, what: 'the JSON state' });
}

const t = (topic: string) => `${BASE}/${topic}`;
const json = (m: Received) => JSON.parse(m.payload);
const waitTopic = (topic: string, payload: string, from = 0) =>
  o.waitFor((m) => m.topic === t(topic) && m.payload === payload, { from, what: `${topic} = ${payload}` });

/** Sends a command and resolves with its result. */
async function command(name: string, payload: string) {
  const from = o.messages.length;
  await o.publish(t(`set/${name}`), payload);
  const result = await o.waitFor((m) => m.topic === t('result') && json(m).command === name, { from, what: `the result of ${name}` });
  await c.step(0);
  return json(result);
}

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
    const durations = o.messages.slice(from).filter((m) => m.topic === t('transactionDuration')).map((m) => Number(m.payload));
    expect(durations.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < durations.length; i++) expect(durations[i]! - durations[i - 1]!).toBe(10);
    // A value is published when it changed (the simulated vehicle draws a constant power).
    expect(o.messages.slice(from).filter((m) => m.topic === t('power')).length).toBeLessThanOrEqual(durations.length);
    expect(Number(o.last(t('power')))).toBeGreaterThan(3_000);
    expect(Number(o.last(t('sessionEnergy')))).toBeGreaterThan(0);
    expect(Number(o.last(t('meterEnergy')))).toBeGreaterThan(0);
    expect(Number(o.last(t('currentL1')))).toBeGreaterThan(5);
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
    expect(await command('MaxCurrent', '1'.repeat(300))).toMatchObject({ success: false, cause: 'The payload is longer than 256 bytes' });
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
    expect(await pwm()).toBeCloseTo(12, 1);
    await waitTopic('loadLimit', '12', from);
    await waitTopic('loadLimitState', 'fresh', from);
    expect(await command('LoadLimit', '81')).toMatchObject({ success: false, cause: '"LoadLimit" must be from 0 to 80' });
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
    await c.step(50);
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
    const ctx = () => (c.h.controller.inspector.view().actors.find((a) => a.systemId === 'mqtt')!.context as { failures: number });
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
    o = await observe(broker.url, ['#']);
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

  test('Home Assistant discovery: every entity checked, re-announced when Home Assistant comes online, withdrawn when turned off', async () => {
    await connect({ MqttControl: 1, MqttLoadManagement: 1 });
    const prefix = 'homeassistant';
    const configs = () => {
      const latest = new Map<string, string>();
      for (const m of o.messages) if (m.topic.startsWith(`${prefix}/`) && m.topic.endsWith('/config')) latest.set(m.topic, m.payload);
      return latest;
    };
    await until('every entity announced', () => ENTITIES.every((e) => [...configs().keys()].some((k) => k.endsWith(`/${e.object}/config`))));
    const announced = configs();
    const deviceIds = new Set<string>();
    for (const e of ENTITIES) {
      const [topic, payload] = [...announced].find(([k]) => k.endsWith(`/${e.component}/${k.split('/')[2]}/${e.object}/config`))!;
      expect(topic.split('/')[1], e.object).toBe(e.component);
      if (e.object === 'tag_id') {
        expect(payload, 'tag ids are not published by default').toBe('');
        continue;
      }
      const config = JSON.parse(payload);
      deviceIds.add(JSON.stringify(config.device));
      expect(config.availability, e.object).toEqual([{ topic: t('status'), payload_available: 'online', payload_not_available: 'offline' }]);
      expect(config.state_topic, e.object).toBe(t(e.state));
      expect(config.unique_id).toMatch(new RegExp(`_${e.object}$`));
      // Every state topic a config names is published.
      expect(o.last(config.state_topic), e.object).toBeDefined();
      const expected: Record<string, Record<string, unknown>> = {
        system_state: {
          device_class: 'enum',
          options: ['idle', 'connected', 'wait_for_auth', 'charging', 'charging_pause', 'finished', 'unavailable', 'error'],
        },
        power: { device_class: 'power', state_class: 'measurement', unit_of_measurement: 'W' },
        session_energy: { device_class: 'energy', state_class: 'total_increasing', unit_of_measurement: 'Wh' },
        meter_energy: { device_class: 'energy', state_class: 'total_increasing', unit_of_measurement: 'Wh' },
        current_l1: { device_class: 'current', state_class: 'measurement', unit_of_measurement: 'A' },
        current_l2: { device_class: 'current', state_class: 'measurement', unit_of_measurement: 'A' },
        current_l3: { device_class: 'current', state_class: 'measurement', unit_of_measurement: 'A' },
        temperature: { device_class: 'temperature', state_class: 'measurement', unit_of_measurement: '°C' },
        transaction_duration: { device_class: 'duration', state_class: 'measurement', unit_of_measurement: 's' },
        transaction_active: { device_class: 'running', payload_on: '1', payload_off: '0' },
        messages: { value_template: '{{ value_json | count }}', json_attributes_topic: t('messages') },
        charging_enabled: { command_topic: t('set/ChargingEnabled'), payload_on: '1', payload_off: '0', state_on: '1', state_off: '0' },
        max_current: { command_topic: t('set/MaxCurrent'), min: 6, max: 32, step: 1, unit_of_measurement: 'A', device_class: 'current' },
        load_limit: { command_topic: t('set/LoadLimit'), min: 0, max: 80, step: 1, unit_of_measurement: 'A' },
      };
      if (expected[e.object]) expect(config, e.object).toMatchObject(expected[e.object]!);
    }
    expect(deviceIds.size).toBe(1);
    expect(announced.size).toBe(ENTITIES.length);

    // A command entity's command works as Home Assistant sends it.
    const maxCurrent = JSON.parse([...announced].find(([k]) => k.endsWith('/max_current/config'))![1]);
    await o.publish(maxCurrent.command_topic, '12');
    await waitTopic('maxCurrent', '12');

    // Home Assistant restarts: it says online, the charger announces again.
    let from = o.messages.length;
    await o.publish(`${prefix}/status`, 'online');
    await o.waitFor((m) => m.topic.endsWith('/system_state/config') && m.payload !== '', { from, what: 're-announcement' });
    from = o.messages.length;
    await o.publish(`${prefix}/status`, 'offline');
    await o.publish(`${prefix}/status`, 'online');
    await o.waitFor((m) => m.topic.endsWith('/power/config') && m.payload !== '', { from, what: 're-announcement' });

    // Control off: the command entities are withdrawn, the others stay.
    from = o.messages.length;
    await patch({ MqttControl: 0 });
    for (const object of ['charging_enabled', 'max_current', 'load_limit'])
      await o.waitFor((m) => m.topic.endsWith(`/${object}/config`) && m.payload === '', { from, what: `${object} withdrawn` });
    expect(o.messages.slice(from).find((m) => m.topic.endsWith('/power/config'))?.payload).not.toBe('');

    // Discovery off: everything withdrawn (empty retained messages); Home Assistant's online then announces nothing.
    from = o.messages.length;
    await patch({ MqttDiscovery: 0 });
    for (const e of ENTITIES) await o.waitFor((m) => m.topic.endsWith(`/${e.object}/config`) && m.payload === '', { from, what: `${e.object} withdrawn` });
    expect([...(await retained(broker.url, `${prefix}/#`)).keys()]).toEqual([]);
    from = o.messages.length;
    await o.publish(`${prefix}/status`, 'online');
    await command('Nothing', '1'); // a round trip: anything the charger sent before its answer has arrived
    expect(o.messages.slice(from).filter((m) => m.topic.endsWith('/config') && m.payload !== '')).toEqual([]);

    // On again, then MQTT off: withdrawn, and the status says offline (retained) before the connection ends.
    await patch({ MqttDiscovery: 1 });
    await o.waitFor((m) => m.topic.endsWith('/power/config') && m.payload !== '', { from });
    from = o.messages.length;
    await patch({ MqttEnabled: 0 });
    for (const e of ENTITIES) await o.waitFor((m) => m.topic.endsWith(`/${e.object}/config`) && m.payload === '', { from, what: `${e.object} withdrawn` });
    await waitTopic('status', 'offline', from);
    await until('disabled', () => mqttState().connection === 'disabled');
    expect((await retained(broker.url, t('status'))).get(t('status'))).toBe('offline');
    expect([...(await retained(broker.url, `${prefix}/#`)).keys()]).toEqual([]);
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
    kept = await retained(broker.url, 'home/#');
    expect(kept.get('home/garage/wallbox/systemState')).toBe('idle');

    // Base topic changed: the old status says offline, the old announcement is withdrawn, the new one announced.
    const from3 = o.messages.length;
    await patch({ MqttBaseTopic: 'home/wallbox2' });
    await o.waitFor((m) => m.topic === 'home/garage/wallbox/status' && m.payload === 'offline', { from: from3 });
    await o.waitFor((m) => m.topic === 'home/wallbox2/status' && m.payload === 'online', { from: from3 });
    await o.waitFor((m) => m.topic.endsWith('/power/config') && m.payload.includes('home/wallbox2/power'), { from: from3 });
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

afterAll(() => {
  // No secret, and by default no tag id, was ever published (the tag test allowed them only for its own check).
  const secrets = [BROKER_PASSWORD, 'wrong-password-1'];
  for (const m of everything) for (const s of secrets) expect(m.payload.includes(s) || m.topic.includes(s), m.topic).toBe(false);
});
