import { LIMIT_SOURCES } from '../../services/energy/allocator.js';
import { describe, expect, test } from 'vitest';
import { runCommand } from '../../services/mqtt/commands.js';
import { ENTITIES } from '../../services/mqtt/discovery.js';
import { mqttOptionsOf } from '../../services/mqtt/options.js';
import { energyControlDouble, limitsOf, type EnergyControlDouble } from '../energy/control-double.js';
import { BROKER_KIND, retained } from './broker.js';
import { broker, BASE, c, command, connect, json, o, patch, t, useMqttTestbed, waitTopic } from './support.js';

/**
 * Energy management on MQTT against a real broker (test/mqtt/support.ts): the allocation's mode, current, phases,
 * reason, limits and inputs published; the mode taken as a command; its Home Assistant entities. The allocator loop
 * is a test double of `EnergyControl` (test/energy/control-double.ts), so what is published is what it reports.
 */

let energy: EnergyControlDouble;
useMqttTestbed(() => {
  energy = energyControlDouble();
  return { energy };
});

describe(`energy management on MQTT against ${BROKER_KIND}`, () => {
  test('published: mode, current, phases, reason in a word and a sentence, every limit, the inputs, today; retained; in the JSON state', async () => {
    await connect();
    const expected: Record<string, string> = {
      chargingMode: 'solar',
      energyCurrent: '9',
      energyPhases: '1',
      energyReason: 'solar',
      energyDescription: 'Limited to 9 A by solar surplus',
      solarState: 'charging',
      'limit/solar': '9',
      'limit/solar/status': 'fresh',
      'limit/maxCurrent': '16',
      'limit/schedule': 'None',
      'limit/schedule/status': 'off',
      gridPower: '-100',
      gridPowerL1: '-150',
      gridPowerL2: '20',
      surplus: '2170',
      gridOperatorLimit: 'None',
      siteShareL1: 'None',
      solarEnergyToday: '3211',
      gridEnergyToday: '450',
    };
    for (const [topic, payload] of Object.entries(expected)) await waitTopic(topic, payload);
    // A new subscriber gets them (retained() collects for a while: asked again until the last one is in).
    let kept = await retained(broker.url, `${BASE}/#`);
    for (let i = 0; i < 50 && !kept.has(t('gridEnergyToday')); i++) kept = await retained(broker.url, `${BASE}/#`);
    for (const [topic, payload] of Object.entries(expected)) expect(kept.get(t(topic)), topic).toBe(payload);

    const state = json(o.messages.filter((m) => m.topic === t('state')).at(-1)!);
    expect(state).toMatchObject({ chargingMode: 'solar', energyCurrent: 9, energyPhases: 1, energyReason: 'solar', gridPower: -100, surplus: 2170 });
    expect(state).toMatchObject({ gridOperatorLimit: null, solarEnergyToday: 3211, gridEnergyToday: 450 });
    expect(state.limits).toMatchObject({ solar: { amps: 9, status: 'fresh' }, schedule: { amps: null, status: 'off' } });
    expect(Object.keys(state).filter((k) => k.startsWith('limit/'))).toEqual([]);

    // A new allocation: the reason is published at once (no clock step), the inputs at the next interval.
    let from = o.messages.length;
    energy.set({ currentA: 0, reason: 'schedule', solar: 'paused', limits: limitsOf({ schedule: 0, maxCurrent: 16 }) });
    await waitTopic('energyReason', 'schedule', from);
    await waitTopic('energyDescription', 'Paused by the schedule', from);
    await waitTopic('energyCurrent', '0', from);
    await waitTopic('limit/schedule/status', 'fresh', from);
    await waitTopic('limit/schedule', '0', from); // a measured value: the first change goes out at once
    from = o.messages.length;
    energy.set({ inputs: { gridPowerW: [1000, 500, 500], surplusW: 0, gridOperatorW: 4200, siteShareA: [10, 10, 10] } });
    await c.step(10_000);
    await waitTopic('gridPower', '2000', from);
    await waitTopic('gridOperatorLimit', '4200', from);
    await waitTopic('siteShareL3', '10', from);
  });

  test('the mode as a command: carried out through EnergyControl.setMode, answered with the id; bad values and refusals change nothing', async () => {
    await connect();
    expect(await command('ChargingMode', '"fast"')).toEqual({
      command: 'ChargingMode',
      success: false,
      cause: 'Control over MQTT is off (setting MqttControl)',
    });
    expect(energy.modes).toEqual([]);

    await patch({ MqttControl: 1 });
    const from = o.messages.length;
    expect(await command('ChargingMode', '"fast"')).toEqual({ command: 'ChargingMode', success: true, value: 'fast' });
    await waitTopic('chargingMode', 'fast', from);
    await waitTopic('solarState', 'bypassed', from);
    expect(await command('ChargingMode', '{"value": "minSolar", "id": "ha-7"}')).toEqual({
      command: 'ChargingMode',
      id: 'ha-7',
      success: true,
      value: 'minSolar',
    });
    expect(energy.modes).toEqual(['fast', 'minSolar']);

    const modes = 'must be one of "fast", "solar", "minSolar"';
    expect(await command('ChargingMode', '"turbo"')).toEqual({ command: 'ChargingMode', success: false, cause: `"ChargingMode" ${modes}` });
    expect(await command('ChargingMode', '1')).toMatchObject({ success: false, cause: `"ChargingMode" ${modes}` });
    expect(await command('ChargingMode', 'solar')).toMatchObject({ success: false, cause: 'The payload must be a JSON value, such as 16 or 1' });
    energy.refuseNext = 'The mode cannot change during a phase switch';
    expect(await command('ChargingMode', '"solar"')).toEqual({
      command: 'ChargingMode',
      success: false,
      cause: 'The mode cannot change during a phase switch',
    });
    expect(energy.modes).toEqual(['fast', 'minSolar']);
    expect(energy.status().mode).toBe('minSolar');
  });

  test('without energy management (no EnergyControl wired) the mode is refused, not ignored', async () => {
    const deps = { settings: c.h.controller.settings, charge: c.h.controller.chargeControl, control: () => true, loadManagement: () => false, limit: () => {} };
    expect(await runCommand(deps, 'ChargingMode', Buffer.from('"solar"'))).toEqual({
      command: 'ChargingMode',
      success: false,
      cause: 'Energy management is not running on this controller',
    });
    expect(await runCommand({ ...deps, energy }, 'ChargingMode', Buffer.from('"solar"'))).toEqual({ command: 'ChargingMode', success: true, value: 'solar' });
  });

  test('schedule and session goals as commands: stored as PATCH /v1/settings stores them; bad values refused with its reason, changing nothing', async () => {
    await connect();
    const setting = (key: string) => c.h.controller.settings.get(key as never);
    expect(await command('SessionEnergyLimit', '20')).toEqual({
      command: 'SessionEnergyLimit',
      success: false,
      cause: 'Control over MQTT is off (setting MqttControl)',
    });
    expect(setting('SessionEnergyLimit')).toBe(0);
    await patch({ MqttControl: 1 });
    // Published (states) before any change: the settings' values, `None` for an empty text.
    await waitTopic('chargingSchedule', 'None');
    await waitTopic('sessionEnergyLimit', '0');

    let from = o.messages.length;
    expect(await command('SessionEnergyLimit', '{"value": 20, "id": "ha-1"}')).toEqual({ command: 'SessionEnergyLimit', id: 'ha-1', success: true, value: 20 });
    expect(await command('SessionDurationLimit', '90')).toEqual({ command: 'SessionDurationLimit', success: true, value: 90 });
    const schedule = 'Mo-Fr 22:00-06:00, Sa-Su 00:00-24:00';
    expect(await command('ChargingSchedule', JSON.stringify(schedule))).toEqual({ command: 'ChargingSchedule', success: true, value: schedule });
    expect(await command('Departure', '{"time": "07:30", "energyKWh": 25, "id": 7}')).toEqual({
      command: 'Departure',
      id: 7,
      success: true,
      value: { time: '07:30', energyKWh: 25 },
    });
    await waitTopic('sessionEnergyLimit', '20', from);
    await waitTopic('sessionDurationLimit', '90', from);
    await waitTopic('chargingSchedule', schedule, from);
    await waitTopic('departureTime', '07:30', from);
    await waitTopic('departureEnergy', '25', from);
    // Stored: the API reads them back, written by the MQTT user.
    const goalKeys = ['SessionEnergyLimit', 'SessionDurationLimit', 'ChargingSchedule', 'DepartureTime', 'DepartureEnergy'];
    const stored = await c.api('GET', `/v1/settings?params=${goalKeys.join(',')}`);
    expect(stored.json.params).toEqual([
      { SessionEnergyLimit: 20 },
      { SessionDurationLimit: 90 },
      { ChargingSchedule: schedule },
      { DepartureTime: '07:30' },
      { DepartureEnergy: 25 },
    ]);
    const state = json(o.messages.filter((m) => m.topic === t('state')).at(-1)!);
    expect(state).toMatchObject({ chargingSchedule: schedule, departureTime: '07:30', departureEnergy: 25, sessionEnergyLimit: 20, sessionDurationLimit: 90 });

    // Refused with the reason PATCH /v1/settings gives, and nothing changes (the departure all or nothing).
    const patchCause = async (key: string, value: unknown) => {
      const res = await c.api('PATCH', '/v1/settings', { params: [{ key, value }] });
      expect(res.status).toBe(400);
      return `${JSON.stringify(key)} ${res.json.params[0].cause as string}`;
    };
    expect(await command('SessionEnergyLimit', '500')).toEqual({
      command: 'SessionEnergyLimit',
      success: false,
      cause: await patchCause('SessionEnergyLimit', 500),
    });
    expect(await command('ChargingSchedule', '"Mo 25:00-06:00"')).toEqual({
      command: 'ChargingSchedule',
      success: false,
      cause: await patchCause('ChargingSchedule', 'Mo 25:00-06:00'),
    });
    expect(await command('DepartureTime', '"7:30"')).toMatchObject({ success: false, cause: await patchCause('DepartureTime', '7:30') });
    expect(await command('Departure', '{"time": "08:00", "energyKWh": 999}')).toEqual({
      command: 'Departure',
      success: false,
      cause: await patchCause('DepartureEnergy', 999),
    });
    const shape = '"Departure" must be an object {"time": "HH:MM", "energyKWh": kWh} ("" and 0: off)';
    expect(await command('Departure', '"08:00"')).toEqual({ command: 'Departure', success: false, cause: shape });
    expect(await command('Departure', '{"time": "08:00"}')).toEqual({ command: 'Departure', success: false, cause: shape });
    expect(goalKeys.map(setting)).toEqual([20, 90, schedule, '07:30', 25]);

    // Turned off again: the empty schedule and departure (`""`, 0), published as None and 0.
    from = o.messages.length;
    expect(await command('ChargingSchedule', '""')).toMatchObject({ success: true, value: '' });
    expect(await command('Departure', '{"time": "", "energyKWh": 0}')).toMatchObject({ success: true });
    await waitTopic('chargingSchedule', 'None', from);
    await waitTopic('departureTime', 'None', from);
    await waitTopic('departureEnergy', '0', from);
    // A schedule near the longest (254 of 255 characters) fits a command with the longest id.
    const longest = Array(16).fill('Mo 00:00-01:00').join(', ');
    expect(await command('ChargingSchedule', JSON.stringify({ value: longest, id: 'x'.repeat(64) }))).toMatchObject({ success: true, value: longest });
  });

  test('without energy management the goal commands are refused, not ignored', async () => {
    const deps = { settings: c.h.controller.settings, charge: c.h.controller.chargeControl, control: () => true, loadManagement: () => false, limit: () => {} };
    for (const [name, payload] of [
      ['SessionEnergyLimit', '20'],
      ['Departure', '{"time": "07:30", "energyKWh": 20}'],
    ]) {
      expect(await runCommand(deps, name!, Buffer.from(payload!))).toEqual({
        command: name,
        success: false,
        cause: 'Energy management is not running on this controller',
      });
    }
    expect(c.h.controller.settings.get('SessionEnergyLimit')).toBe(0);
  });

  test('Home Assistant: mode as a select, limiting reason, phase count, grid power, surplus, today’s energy; the select’s command works', async () => {
    await connect({ MqttControl: 1 });
    const config = async (component: string, object: string) => {
      const m = await o.waitFor((x) => x.topic.endsWith(`/${component}/${x.topic.split('/')[2]}/${object}/config`) && x.payload !== '', { what: object });
      return JSON.parse(m.payload);
    };
    const select = await config('select', 'charging_mode');
    expect(select).toMatchObject({
      state_topic: t('chargingMode'),
      command_topic: t('set/ChargingMode'),
      command_template: '{{ value | tojson }}',
      options: ['fast', 'solar', 'minSolar'],
    });
    expect(await config('sensor', 'limiting_reason')).toMatchObject({
      state_topic: t('energyReason'),
      device_class: 'enum',
      options: [...LIMIT_SOURCES, 'ramp'],
    });
    expect(await config('sensor', 'phase_count')).toMatchObject({ state_topic: t('energyPhases'), state_class: 'measurement' });
    expect(await config('sensor', 'energy_description')).toMatchObject({ state_topic: t('energyDescription') });
    const power = { device_class: 'power', state_class: 'measurement', unit_of_measurement: 'W' };
    expect(await config('sensor', 'grid_power')).toMatchObject({ state_topic: t('gridPower'), ...power });
    expect(await config('sensor', 'surplus')).toMatchObject({ state_topic: t('surplus'), ...power });
    const energyClass = { device_class: 'energy', state_class: 'total_increasing', unit_of_measurement: 'Wh' };
    expect(await config('sensor', 'solar_energy_today')).toMatchObject({ state_topic: t('solarEnergyToday'), ...energyClass });
    expect(await config('sensor', 'grid_energy_today')).toMatchObject({ state_topic: t('gridEnergyToday'), ...energyClass });
    // Every energy entity announced (none left out of this test), and its state topic published.
    const options = mqttOptionsOf(c.h.controller.settings);
    const energyEntities = ENTITIES.filter((e) => e.when?.({ ...options, energy: true }) !== e.when?.({ ...options, energy: false }));
    expect(energyEntities.map((e) => e.object).sort()).toEqual(
      [
        ...['charging_mode', 'limiting_reason', 'phase_count', 'energy_description', 'grid_power', 'surplus', 'solar_energy_today', 'grid_energy_today'],
        ...['charging_schedule', 'departure_time', 'departure_energy', 'session_energy_limit', 'session_duration_limit'],
      ].sort(),
    );
    for (const e of energyEntities) await o.waitFor((m) => m.topic === t(e.state), { what: e.state });

    // The select as Home Assistant sends it: the option through command_template (templates.test.ts renders it).
    const from = o.messages.length;
    await o.publish(select.command_topic, '"minSolar"');
    await waitTopic('chargingMode', 'minSolar', from);
    expect(energy.modes).toEqual(['minSolar']);

    // Control off: the select goes, the sensors stay.
    const off = o.messages.length;
    await patch({ MqttControl: 0 });
    await o.waitFor((m) => m.topic.endsWith('/select/' + m.topic.split('/')[2] + '/charging_mode/config') && m.payload === '', {
      from: off,
      what: 'select withdrawn',
    });
    expect(o.messages.slice(off).find((m) => m.topic.endsWith('/limiting_reason/config'))?.payload).not.toBe('');
  });
});
