import { describe, expect, test } from 'vitest';
import { ENTITIES } from '../../services/mqtt/discovery.js';
import { KNOWN } from '../charging/scenario.js';
import { startOcppCharger } from '../ocpp/support.js';
import { BROKER_KIND, observe, retained, TLS_CA_FILE } from './broker.js';
import { broker, c, command, connect, json, mqttState, o, patch, proxy, t, until, useMqttTestbed, waitTopic } from './support.js';

/**
 * Home Assistant over MQTT against a real broker (test/mqtt/support.ts): discovery as its MQTT integration reads it,
 * and the entities and commands a Home Assistant user has for the charge (the templates: templates.test.ts).
 */

useMqttTestbed();

/** Energy management's entities (energy.test.ts checks them). */
const ENERGY_OBJECTS = [
  'charging_mode',
  'limiting_reason',
  'energy_description',
  'phase_count',
  'grid_power',
  'surplus',
  'solar_energy_today',
  'grid_energy_today',
  'charging_schedule',
  'departure_time',
  'departure_energy',
  'session_energy_limit',
  'session_duration_limit',
];

describe(`Home Assistant against ${BROKER_KIND}`, () => {
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
      if (ENERGY_OBJECTS.includes(e.object)) continue; // offered where energy management runs: test/mqtt/energy.test.ts
      const config = JSON.parse(payload);
      deviceIds.add(JSON.stringify(config.device));
      expect(config.availability, e.object).toEqual([{ topic: t('status'), payload_available: 'online', payload_not_available: 'offline' }]);
      expect(config.state_topic, e.object).toBe(t(e.state));
      expect(config.unique_id).toMatch(new RegExp(`_${e.object}$`));
      // Home Assistant 2025.10 deprecates object_id: default_entity_id gives the same entity id it gave.
      expect(config, e.object).not.toHaveProperty('object_id');
      expect(config.default_entity_id, e.object).toBe(`${e.component}.${topic.split('/')[2]}_${e.object}`);
      expect(config.default_entity_id, e.object).toBe(`${e.component}.${config.unique_id}`);
      expect(config.entity_category, e.object).toBe(['backend_connection', 'started', 'ip_address'].includes(e.object) ? 'diagnostic' : undefined);
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
        voltage_l1: { device_class: 'voltage', state_class: 'measurement', unit_of_measurement: 'V' },
        voltage_l2: { device_class: 'voltage', state_class: 'measurement', unit_of_measurement: 'V' },
        voltage_l3: { device_class: 'voltage', state_class: 'measurement', unit_of_measurement: 'V' },
        temperature: { device_class: 'temperature', state_class: 'measurement', unit_of_measurement: '°C' },
        transaction_duration: { device_class: 'duration', state_class: 'measurement', unit_of_measurement: 's' },
        transaction_active: { device_class: 'running', payload_on: '1', payload_off: '0' },
        offered_current: { device_class: 'current', state_class: 'measurement', unit_of_measurement: 'A' },
        plugged_in: { device_class: 'plug', payload_on: '1', payload_off: '0' },
        charging: { device_class: 'battery_charging', payload_on: '1', payload_off: '0' },
        problem: { device_class: 'problem', payload_on: '1', payload_off: '0' },
        cable_lock: { device_class: 'lock', payload_on: '0', payload_off: '1' },
        session_start: { device_class: 'timestamp' },
        last_session_energy: { device_class: 'energy', unit_of_measurement: 'Wh' },
        backend_connection: { device_class: 'connectivity', payload_on: '1', payload_off: '0' },
        started: { device_class: 'timestamp' },
        ip_address: { state_topic: t('ipAddress') },
        charge: { command_topic: t('set/Charge'), state_topic: t('transactionActive'), payload_on: '1', payload_off: '0', state_on: '1', state_off: '0' },
        pause: { command_topic: t('set/Pause'), state_topic: t('paused'), payload_on: '1', payload_off: '0', state_on: '1', state_off: '0' },
        messages: { json_attributes_topic: t('messages') },
        charging_enabled: { command_topic: t('set/ChargingEnabled'), payload_on: '1', payload_off: '0', state_on: '1', state_off: '0' },
        max_current: { command_topic: t('set/MaxCurrent'), min: 6, max: 32, step: 1, unit_of_measurement: 'A', device_class: 'current' },
        load_limit: { command_topic: t('set/LoadLimit'), min: 0, max: 80, step: 1, unit_of_measurement: 'A' },
      };
      if (expected[e.object]) expect(config, e.object).toMatchObject(expected[e.object]!);
    }
    expect(deviceIds.size).toBe(1);
    expect(announced.size).toBe(ENTITIES.length);
    const objects = ENTITIES.map((e) => e.object);
    for (const object of [
      'offered_current',
      'plugged_in',
      'charging',
      'problem',
      'cable_lock',
      'session_start',
      'last_session_energy',
      'backend_connection',
      'started',
      'ip_address',
      'charge',
      'pause',
    ]) {
      expect(objects, object).toContain(object);
    }

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
    for (const object of ['charging_enabled', 'max_current', 'load_limit', 'charge', 'pause'])
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

  test('the charge from Home Assistant: its entities follow it; stop, pause and resume with their refusals; answers carry the request id', async () => {
    await connect({ MqttControl: 1 });
    expect(o.last(t('pluggedIn'))).toBe('0');
    expect(o.last(t('charging'))).toBe('0');
    expect(o.last(t('problem'))).toBe('0');
    expect(o.last(t('cableLocked'))).toBe('0');
    expect(o.last(t('offeredCurrent'))).toBe('0');
    expect(o.last(t('paused'))).toBe('0');
    expect(o.last(t('transactionStart'))).toBe('None');
    expect(o.last(t('lastSessionEnergy'))).toBe('None');
    expect(o.last(t('backendConnected'))).toBe('0'); // no central system configured
    expect(new Date(o.last(t('startedAt'))!).toISOString()).toBe(o.last(t('startedAt')));
    expect(o.last(t('ipAddress'))).toBeDefined();
    expect(JSON.parse(o.last(t('state'))!)).toMatchObject({ pluggedIn: false, offeredCurrent: 0, paused: false, lastSessionEnergy: null });

    // Two clients at once: each answer echoes its request's id.
    let from = o.messages.length;
    const other = await observe(broker.url, []);
    await Promise.all([o.publish(t('set/MaxCurrent'), '{"value": 10, "id": "ha-1"}'), other.publish(t('set/MaxCurrent'), '{"value": 12, "id": 42}')]);
    await o.waitFor((m) => m.topic === t('result') && json(m).id === 'ha-1', { from });
    await o.waitFor((m) => m.topic === t('result') && json(m).id === 42, { from });
    await other.end();
    const results = o.messages
      .slice(from)
      .filter((m) => m.topic === t('result'))
      .map(json);
    expect(results).toContainEqual({ command: 'MaxCurrent', id: 'ha-1', success: true, value: 10 });
    expect(results).toContainEqual({ command: 'MaxCurrent', id: 42, success: true, value: 12 });
    expect(await command('MaxCurrent', '{"value": 40, "id": "ha-2"}')).toMatchObject({
      id: 'ha-2',
      success: false,
      cause: '"MaxCurrent" must be from 6 to 32 A',
    });
    expect(await command('Nothing', '{"value": 1, "id": "ha-3"}')).toMatchObject({ id: 'ha-3', success: false });
    expect(await command('MaxCurrent', '{"value": 16, "id": {"a": 1}}')).toMatchObject({
      success: false,
      cause: '"id" must be a string of at most 64 characters or a number',
    });
    expect(await command('MaxCurrent', '16')).toEqual({ command: 'MaxCurrent', success: true, value: 16 });

    // Nothing to stop or pause yet (starting: charge-start.test.ts).
    expect(await command('Pause', '{"value": 1, "id": "p"}')).toEqual({
      command: 'Pause',
      id: 'p',
      success: false,
      cause: 'No charge is running (state idle)',
    });
    expect(await command('Charge', '0')).toEqual({ command: 'Charge', success: false, cause: 'No charge is running (state idle)' });
    expect(await command('Charge', '2')).toMatchObject({ success: false, cause: '"Charge" must be 1 or 0' });

    from = o.messages.length;
    await c.act('plug');
    await waitTopic('pluggedIn', '1', from);
    await c.tag(KNOWN);
    await c.act('charge');
    await waitTopic('charging', '1', from);
    await waitTopic('cableLocked', '1', from);
    await waitTopic('offeredCurrent', '16', from);
    const api = await c.state();
    await waitTopic('transactionStart', api.transaction.transactionStart, from);
    expect(await command('Charge', '1')).toMatchObject({ success: false, cause: 'A charge is already running' });

    // The offered current follows every limit.
    from = o.messages.length;
    expect(await command('MaxCurrent', '10')).toMatchObject({ success: true });
    await waitTopic('offeredCurrent', '10', from);

    // The current of the running charge (the dashboard's slider, POST /v1/charge/current): 6 A to MaxCurrent; null frees it.
    expect(await command('ChargeCurrent', '11')).toMatchObject({
      success: false,
      cause: 'The current must be a whole number of amperes from 6 to 10 A (the MaxCurrent setting)',
    });
    expect(await command('ChargeCurrent', '"8"')).toMatchObject({ success: false, cause: '"ChargeCurrent" must be a number of amperes or null' });
    from = o.messages.length;
    expect(await command('ChargeCurrent', '8')).toEqual({ command: 'ChargeCurrent', success: true, value: 8 });
    await waitTopic('offeredCurrent', '8', from);
    from = o.messages.length;
    expect(await command('ChargeCurrent', 'null')).toEqual({ command: 'ChargeCurrent', success: true, value: null });
    for (let s = 0; s < 3; s++) await c.step(1_000);
    await waitTopic('offeredCurrent', '10', from);

    // Pause: the transaction goes on, the contactor opens; resume: charging again.
    from = o.messages.length;
    expect(await command('Pause', '{"value": 1}')).toEqual({ command: 'Pause', success: true, value: 1 });
    await waitTopic('paused', '1', from);
    await waitTopic('systemState', 'charging_pause', from);
    await waitTopic('offeredCurrent', '0', from);
    expect((await c.state()).ocppState).toBe('suspendedevse');
    expect((await c.state()).transaction.transactionId).toBe(api.transaction.transactionId);
    await c.step(6_000);
    expect((await c.view()).plant.contactorClosed).toBe(false);
    expect(await command('Pause', '1')).toMatchObject({ success: false, cause: 'The charge is paused already' });
    from = o.messages.length;
    expect(await command('Pause', '0')).toEqual({ command: 'Pause', success: true, value: 0 });
    await waitTopic('paused', '0', from);
    await waitTopic('systemState', 'charging', from);
    expect(await command('Pause', '0')).toMatchObject({ success: false, cause: 'The charge is not paused' });

    // A pause the user did not make is not theirs to end.
    await patch({ MqttLoadManagement: 1, MqttLoadLimitFallback: 0 });
    expect((await c.state()).systemState).toBe('charging_pause');
    expect(await command('Pause', '0')).toMatchObject({
      success: false,
      cause: 'The charge was not paused from here: the allowed current is below 6 A (maximum current or a load limit)',
    });
    await patch({ MqttLoadManagement: 0 });
    expect((await c.state()).systemState).toBe('charging');

    // Stop (paused first: the pause ends with its transaction).
    for (let s = 0; s < 5; s++) await c.step(1_000);
    expect(await command('Pause', '1')).toMatchObject({ success: true });
    from = o.messages.length;
    expect(await command('Charge', '0')).toEqual({ command: 'Charge', success: true, value: 0 });
    await waitTopic('transactionActive', '0', from);
    await waitTopic('systemState', 'finished', from);
    await waitTopic('paused', '0', from);
    await c.step(6_000); // the vehicle stays in C: the contactor opens after 6 s, then the cable is unlocked
    await waitTopic('cableLocked', '0', from);
    const done = (await c.api('GET', '/v1/transactions')).json;
    expect(JSON.stringify(done)).toContain(api.transaction.transactionId);
    const last = await o.waitFor((m) => m.topic === t('lastSessionEnergy') && m.payload !== 'None', { from });
    expect(Number(last.payload)).toBeGreaterThan(0);
    expect(await command('Charge', '0')).toMatchObject({ success: false, cause: expect.stringContaining('No charge is running: the charge has finished') });

    // A new transaction starts unpaused, at the full current.
    from = o.messages.length;
    await c.tag(KNOWN);
    await waitTopic('transactionActive', '1', from);
    await waitTopic('offeredCurrent', '10', from);
    expect(o.last(t('paused'))).toBe('0');
  });

  test('the OCPP backend connection: on once the central system accepted the charge point, off when the link is lost', async () => {
    const oc = await startOcppCharger({ charger: { env: { MQTT_CA_FILE: TLS_CA_FILE } }, settings: { MqttEnabled: 1, MqttUrl: proxy.url } });
    try {
      await oc.online();
      await o.waitFor((m) => m.topic === t('backendConnected') && m.payload === '1', { what: 'backendConnected = 1' });
      const from = o.messages.length;
      await oc.csms.close();
      await o.waitFor((m) => m.topic === t('backendConnected') && m.payload === '0', { from, what: 'backendConnected = 0' });
      // The JSON state is a message of its own, after the single topic: under load it arrives later.
      await o.waitFor((m) => m.topic === t('state') && json(m).backendConnected === false, { from, what: 'the JSON state with backendConnected false' });
    } finally {
      await oc.h.stop();
    }
  });
});
