import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../db/schema.js';
import { CATALOGUE, FIELDS } from '../../services/settings/catalogue.js';
import { FAILED, startHarness, type Harness, type HttpResult } from '../harness.js';

/** Settings (spec 2.7, 2.8, 2.15, 4.2, 4.8, 5 item 9) over HTTP against a running controller on simulated hardware. */

const PASSWORDS: Record<Role, string> = {
  user: 'user-secret-1',
  operator: 'operator-secret-1',
  installer: 'installer-secret-1',
  manufacturer: 'manufacturer-secret-1',
};

let h: Harness;
let current: { role: Role; session: string } | undefined;

beforeAll(async () => {
  h = await startHarness();
  for (const role of ['user', 'installer', 'manufacturer'] as const) await h.controller.accounts.set(role, role, PASSWORDS[role]);
});
afterAll(() => h.stop());

/** A call as `role` (logging in when the current session is another account's: one login at a time). */
async function as(role: Role, method: string, path: string, body?: unknown): Promise<HttpResult> {
  if (current?.role !== role) current = { role, session: await h.login(role === 'operator' ? 'operator' : role, PASSWORDS[role]) };
  let res = await h.http(method, path, { session: current.session, body });
  if (res.status === 401) {
    current = { role, session: await h.login(role === 'operator' ? 'operator' : role, PASSWORDS[role]) };
    res = await h.http(method, path, { session: current.session, body });
  }
  return res;
}

const value = async (key: string, role: Role = 'manufacturer') => {
  const res = await as(role, 'GET', `/v1/settings?params=${key}`);
  return Object.values(res.json.params[0])[0];
};
const set = (role: Role, params: { key: string; value: unknown }[], method = 'PATCH') => as(role, method, '/v1/settings', { params });

function fieldsOf(body: any): any[] {
  return body.groups.flatMap((g: any) => g.sub_groups.flatMap((sg: any) => sg.fields));
}

describe('GET /v1/settings', () => {
  it('answers 2.7 with result.reboot_required and ChargePointInfo', async () => {
    const res = await as('operator', 'GET', '/v1/settings');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'settings', result: { reboot_required: false } });
    expect(res.json.ChargePointInfo).toEqual({
      languages: [
        { key: 'gb', value: 0, lang: 'en_GB', label: 'English', active: true },
        { key: 'de', value: 1, lang: 'de_DE', label: 'Deutsch', active: false },
        { key: 'nl', value: 2, lang: 'nl_NL', label: 'Nederlands', active: false },
        { key: 'fr', value: 3, lang: 'fr_FR', label: 'Français', active: false },
      ],
      MultipleConnectors: false,
      ControllerHemX2: false,
      OCPPWLEnabled: false,
      FLLEnabled: true,
    });
    const rfid = fieldsOf(res.json).find((f) => f.key === 'RFIDMode');
    expect(rfid).toEqual({
      role: 'operator',
      key: 'RFIDMode',
      value: { value: 0, label: 'RFID only' },
      type: 'enum',
      mode: 'rw',
      default: { value: 0, label: 'RFID only' },
      label: 'RFID Mode',
      description: expect.any(String),
      options: [
        { value: 0, label: 'RFID only' },
        { value: 1, label: 'RFID/NFC hybrid' },
      ],
    });
    const authorization = res.json.groups.find((g: any) => g.key === 'authorization');
    expect(authorization.label).toBe('Authorization');
    expect(authorization.sub_groups.map((sg: any) => sg.label)).toContain('RFID Settings');
    const ip = fieldsOf(res.json).find((f) => f.key === 'LanIpAddress');
    expect(ip).toMatchObject({ type: 'string', validation: { length: [7, 15] }, parents: [{ name: 'LanMode', value: [1] }] });
    const max = fieldsOf(res.json).find((f) => f.key === 'MaxCurrent');
    expect(max).toMatchObject({ type: 'int', value: 16, unit: 'A', validation: { range: [6, 32] } });
    expect(fieldsOf(res.json).find((f) => f.key === 'PhaseCurrentLimits')).toBeUndefined(); // installer
    const time = fieldsOf(res.json).find((f) => f.key === 'ControllerTime_custom');
    expect(time).toMatchObject({ mode: 'ro', value: new Date(h.clock.now()).toISOString() });
  });

  it('shows each role only what it may see, marks what it may not change, and spans roles with "+"', async () => {
    const views: Record<string, any> = {};
    for (const role of ['user', 'operator', 'installer', 'manufacturer'] as const) views[role] = (await as(role, 'GET', '/v1/settings')).json;
    const keys = (role: Role) => fieldsOf(views[role]).map((f: any) => f.key);
    const rank = ['user', 'operator', 'installer', 'manufacturer'];
    for (const role of ['user', 'operator', 'installer', 'manufacturer'] as const) {
      const expected = [...FIELDS.values()].filter((f) => rank.indexOf(f.role) <= rank.indexOf(role)).map((f) => f.key);
      expect(keys(role), role).toEqual(expected);
    }
    expect(views.manufacturer.groups.map((g: any) => g.key)).toEqual([
      'network',
      'backend',
      'authorization',
      'whitelists',
      'loadmanagement',
      'installation',
      'system',
      'devel',
    ]);
    expect(views.user.groups.map((g: any) => [g.key, g.role])).toEqual([
      ['authorization', 'user'],
      ['loadmanagement', 'user'],
      ['system', 'user'],
    ]);
    expect(views.operator.groups.find((g: any) => g.key === 'authorization').role).toBe('user+');
    expect(views.installer.groups.find((g: any) => g.key === 'backend').role).toBe('operator+');
    const free = fieldsOf(views.user).find((f: any) => f.key === 'FreeCharging');
    expect(free.isNotAuthorized).toBe(1);
    expect(fieldsOf(views.operator).find((f: any) => f.key === 'FreeCharging').isNotAuthorized).toBeUndefined();
    expect(fieldsOf(views.user).find((f: any) => f.key === 'Language').isNotAuthorized).toBeUndefined();
  });

  it('answers single keys as {params: [{key: value}]}; unknown or hidden keys 404; bad queries 400', async () => {
    const res = await as('operator', 'GET', '/v1/settings?params=MaxCurrent,FreeCharging,Language');
    expect(res.json).toEqual({ params: [{ MaxCurrent: 16 }, { FreeCharging: { value: 0, label: 'Off' } }, { Language: { value: 0, label: 'English' } }] });
    for (const q of ['NoSuchKey', 'MaxCurrent,NoSuchKey', 'PilotDebounce']) {
      const r = await as('operator', 'GET', `/v1/settings?params=${q}`);
      expect([q, r.status, r.json]).toEqual([q, 404, FAILED]);
    }
    expect((await as('manufacturer', 'GET', '/v1/settings?params=PilotDebounce')).json).toEqual({ params: [{ PilotDebounce: 40 }] });
    for (const q of ['', 'MaxCurrent,,FreeCharging', `${'A,'.repeat(2000)}A`]) {
      const r = await as('operator', 'GET', `/v1/settings?params=${q}`);
      expect([r.status, r.json]).toEqual([400, FAILED]);
    }
    // 4000 characters exactly is allowed: the keys exist or not decides (404 here).
    expect((await as('operator', 'GET', `/v1/settings?params=${'x'.repeat(4000)}`)).status).toBe(404);
  });

  it('accepts the deprecated body form {params: [keys]}', async () => {
    const session = current!.session;
    const res = await h.http('GET', '/v1/settings', { session, rawBody: JSON.stringify({ params: ['MaxCurrent'] }) });
    expect([res.status, res.json]).toEqual([200, { params: [{ MaxCurrent: 16 }] }]);
    const bad = await h.http('GET', '/v1/settings', { session, rawBody: '{"params": "MaxCurrent"}' });
    expect([bad.status, bad.json]).toEqual([400, FAILED]);
    const broken = await h.http('GET', '/v1/settings', { session, rawBody: '{"params": [' });
    expect(broken.status).toBe(400);
  });
});

describe('POST and PATCH /v1/settings', () => {
  it('validates every type at its edges', async () => {
    const cases: [string, unknown, boolean][] = [
      ['MaxCurrent', 6, true],
      ['MaxCurrent', 32, true],
      ['MaxCurrent', 5, false],
      ['MaxCurrent', 33, false],
      ['MaxCurrent', 16.5, false],
      ['MaxCurrent', '16', false],
      ['MaxCurrent', null, false],
      ['AuthTimeout', 600, true],
      ['AuthTimeout', 601, false],
      ['FreeCharging', 1, true],
      ['FreeCharging', { value: 0, label: 'Off' }, true],
      ['FreeCharging', 2, false],
      ['FreeCharging', 'On', false],
      ['FreeCharging', true, false],
      ['LanIpAddress', '192.168.1.2', true],
      ['LanIpAddress', '192.168.1.254', true],
      // With the netmask (255.255.255.0) and gateway (192.168.1.1): a host of the gateway's subnet only.
      ['LanIpAddress', '10.0.0.1', false],
      ['LanIpAddress', '192.168.1.255', false],
      ['LanIpAddress', '192.168.1.0', false],
      ['LanIpAddress', '192.168.1.1', false],
      ['LanIpAddress', '1.2.3', false],
      ['LanIpAddress', '256.1.1.1', false],
      ['LanIpAddress', '1.1.1.1.1.1.1.1', false],
      ['LanNetmask', '255.255.0.0', true],
      ['LanNetmask', '255.255.255.0', true],
      ['LanNetmask', '255.0.255.0', false],
      ['LanNetmask', '255.255.255.254', false],
      ['GsmApn', '', true],
      ['GsmApn', 'internet.provider.com', true],
      ['GsmApn', 'a'.repeat(64), true],
      ['GsmApn', '-internet', false],
      ['GsmApn', 'my apn', false],
      ['GsmApn', 'a'.repeat(65), false],
      ['GsmApn', 'internet\n', false],
      ['GsmApn', 'ü', false],
      ['OcppChargeBoxId', '', false],
      ['OcppChargeBoxId', 'x'.repeat(48), true],
      ['OcppChargeBoxId', 'x'.repeat(49), false],
      ['OcppUrl', 'wss://central.example/ocpp', true],
      ['OcppUrl', 'http://central.example', false],
      ['PhaseCurrentLimits', [6, 80, 32], true],
      ['PhaseCurrentLimits', [5, 80, 32], false],
      ['PhaseCurrentLimits', [6, 81, 32], false],
      ['PhaseCurrentLimits', [16, 16], false],
      ['PhaseCurrentLimits', [16, 16, 16, 16], false],
      ['PhaseCurrentLimits', [16, 16.5, 16], false],
      ['PhaseCurrentLimits', '16,16,16', false],
    ];
    for (const [key, v, ok] of cases) {
      const before = await value(key);
      const res = await set('manufacturer', [{ key, value: v }]);
      if (ok) {
        expect([key, v, res.status, res.json.params]).toEqual([key, v, 200, [{ key, success: true }]]);
      } else {
        expect([key, v, res.status]).toEqual([key, v, 400]);
        expect(res.json).toMatchObject({ success: false, cause: expect.stringContaining(JSON.stringify(key)), params: [{ key, success: false }] });
        expect(await value(key)).toEqual(before);
      }
    }
    await set('manufacturer', [{ key: 'PhaseCurrentLimits', value: [32, 32, 32] }]);
    await set('manufacturer', [{ key: 'MaxCurrent', value: 16 }]);
  });

  it('checks shape, permission, existence and value in that order, and writes nothing when any pair fails', async () => {
    const res = await set('operator', [
      { key: 'MaxCurrent', value: 20 },
      { key: 'Ventilation', value: 1 },
      { key: 'NoSuchKey', value: 1 },
      { key: 'PilotDebounce', value: 20 },
      { key: 'FirmwareVersion_custom', value: 'x' },
      { key: 'AuthTimeout', value: 1 },
      { key: 'MaxCurrent', value: 21 },
    ]);
    expect(res.status).toBe(400);
    expect(res.json.cause).toBe(
      'No setting was changed: "Ventilation" may not be changed by role operator; "NoSuchKey" does not exist; ' +
        '"PilotDebounce" may not be changed by role operator; ' +
        '"FirmwareVersion_custom" is read-only; "AuthTimeout" must be from 5 to 600 s (params[5]); "MaxCurrent" appears more than once',
    );
    expect(await value('MaxCurrent')).toBe(16);
    for (const body of [
      undefined,
      [],
      { params: 'MaxCurrent' },
      { params: [] },
      { params: [{ key: 'MaxCurrent' }] },
      { params: [{ key: 'MaxCurrent', value: 20, extra: 1 }] },
      { params: [['MaxCurrent', 20]] },
    ]) {
      const r = await as('operator', 'POST', '/v1/settings', body);
      expect([JSON.stringify(body), r.status, r.json]).toEqual([JSON.stringify(body), 400, FAILED]);
    }
    expect(await value('MaxCurrent')).toBe(16);
  });

  it('POST and PATCH both set; an unchanged value is a success too', async () => {
    // reboot_required is already true: the edge cases above changed network settings.
    expect((await set('operator', [{ key: 'AuthTimeout', value: 45 }], 'POST')).json).toEqual({
      params: [{ key: 'AuthTimeout', success: true }],
      reboot_required: true,
    });
    expect((await set('operator', [{ key: 'AuthTimeout', value: 45 }], 'PATCH')).json).toEqual({
      params: [{ key: 'AuthTimeout', success: true }],
      reboot_required: true,
    });
    expect(await value('AuthTimeout')).toBe(45);
    await set('operator', [{ key: 'AuthTimeout', value: 30 }]);
  });

  it('concurrent writes are each all-or-nothing', async () => {
    const session = current?.role === 'installer' ? current.session : (await as('installer', 'GET', '/v1/login'), current!.session);
    const requests = Array.from({ length: 20 }, (_, i) =>
      h.http('PATCH', '/v1/settings', {
        session,
        body: {
          params:
            i % 3 === 2
              ? [
                  { key: 'MaxCurrent', value: 6 + i },
                  { key: 'AuthTimeout', value: 1 },
                ] // refused: AuthTimeout out of range
              : [
                  { key: 'MaxCurrent', value: 6 + i },
                  { key: 'AuthTimeout', value: 100 + i },
                  { key: 'PhaseCurrentLimits', value: [40 + i, 40 + i, 40 + i] },
                ],
        },
      }),
    );
    const results = await Promise.all(requests);
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 20 }, (_, i) => (i % 3 === 2 ? 400 : 200)));
    const max = (await value('MaxCurrent', 'installer')) as number;
    expect(await value('AuthTimeout', 'installer')).toBe(100 + max - 6);
    expect(await value('PhaseCurrentLimits', 'installer')).toEqual([34 + max, 34 + max, 34 + max]);
    expect((max - 6) % 3).not.toBe(2);
  });

  it('fuzzed bodies never answer 500 and change nothing when refused', async () => {
    const keys = fc.constantFrom(...FIELDS.keys(), 'NoSuchKey', '', 'maxcurrent');
    const values = fc.oneof(
      fc.integer({ min: -100, max: 200 }),
      fc.string({ maxLength: 20 }),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.integer({ min: 0, max: 90 }), { maxLength: 4 }),
      fc.record({ value: fc.integer({ min: -1, max: 4 }) }),
    );
    const body = fc.oneof(fc.record({ params: fc.array(fc.record({ key: keys, value: values }), { maxLength: 4 }) }), fc.jsonValue());
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const before = (await as('manufacturer', 'GET', '/v1/settings')).json;
        const res = await as('manufacturer', 'PATCH', '/v1/settings', b);
        expect([200, 400]).toContain(res.status);
        if (res.status === 400) {
          expect(res.json).toMatchObject(FAILED);
          const after = (await as('manufacturer', 'GET', '/v1/settings')).json;
          expect(fieldsOf(after).map((f) => [f.key, f.value])).toEqual(fieldsOf(before).map((f) => [f.key, f.value]));
        }
      }),
      { numRuns: 60 },
    );
    // Back to the defaults for the tests after this one.
    const defaults = [...FIELDS.values()].filter((f) => f.mode === 'rw').map((f) => ({ key: f.key, value: f.default }));
    expect((await set('manufacturer', defaults)).status).toBe(200);
  });
});

describe('reboot, persistence and the app endpoints', () => {
  it('a change that needs a reboot sets reboot_required until the restart; values survive it', async () => {
    const res = await set('operator', [
      { key: 'LanMode', value: 1 },
      { key: 'Language', value: 1 },
    ]);
    expect(res.json).toEqual({
      params: [
        { key: 'LanMode', success: true },
        { key: 'Language', success: true },
      ],
      reboot_required: true,
    });
    expect((await as('operator', 'GET', '/v1/settings')).json.result.reboot_required).toBe(true);
    expect((await as('operator', 'GET', '/v1/settings')).json.ChargePointInfo.languages.find((l: any) => l.active).key).toBe('de');

    const dataDir = h.dataDir;
    await h.stop({ keepData: true });
    h = await startHarness({ dataDir });
    current = undefined;
    const after = (await as('operator', 'GET', '/v1/settings')).json;
    expect(after.result.reboot_required).toBe(false);
    expect(fieldsOf(after).find((f) => f.key === 'LanMode').value).toEqual({ value: 1, label: 'Statisch' }); // in German now
    expect(after.ChargePointInfo.languages.find((l: any) => l.active).key).toBe('de');
    await set('operator', [
      { key: 'LanMode', value: 0 },
      { key: 'Language', value: 0 },
    ]);
  });

  it('/v1/app_settings is the same shape limited to the app fields', async () => {
    const res = await as('operator', 'GET', '/v1/app_settings');
    expect(res.status).toBe(200);
    expect(res.json.name).toBe('settings');
    expect(res.json.ChargePointInfo.FLLEnabled).toBe(true);
    const appKeys = CATALOGUE.flatMap((g) =>
      g.sub_groups.flatMap((sg) => sg.fields.filter((f) => f.app && f.role !== 'installer' && f.role !== 'manufacturer').map((f) => f.key)),
    );
    expect(fieldsOf(res.json).map((f) => f.key)).toEqual(appKeys);
  });

  it('/v1/app_dashboard: live fields, the graphic list, descriptions=0, settings_changed per account', async () => {
    await as('operator', 'GET', '/v1/settings');
    let d = (await as('operator', 'GET', '/v1/app_dashboard')).json;
    expect(d).toMatchObject({ name: 'dashboard', settings_changed: false, ControllerTime_custom: new Date(h.clock.now()).toISOString() });
    const live = d.groups[0].fields;
    expect(live.find((f: any) => f.key === 'Dashboard_SystemState')).toMatchObject({
      value: 'idle',
      mode: 'ro',
      type: 'string',
      description: expect.any(String),
    });
    expect(live.find((f: any) => f.key === 'Dashboard_Power')).toMatchObject({ value: 0, unit: 'W', type: 'int' });
    expect(d.GraphicDashboard).toEqual([
      { key: 'Dashboard_Power' },
      { key: 'Dashboard_Energy' },
      { key: 'Dashboard_Currents' },
      { key: 'Dashboard_Duration' },
      { key: 'MaxCurrent' },
    ]);
    const terse = (await as('operator', 'GET', '/v1/app_dashboard?descriptions=0')).json;
    expect(JSON.stringify(terse)).not.toContain('"description"');
    for (const q of ['2', 'x', '']) expect((await as('operator', 'GET', `/v1/app_dashboard?descriptions=${q}`)).status).toBe(400);

    await set('operator', [{ key: 'AuthTimeout', value: 31 }]);
    expect((await as('operator', 'GET', '/v1/app_dashboard')).json.settings_changed).toBe(true);
    expect((await as('user', 'GET', '/v1/app_dashboard')).json.settings_changed).toBe(true);
    await as('operator', 'GET', '/v1/app_settings');
    expect((await as('operator', 'GET', '/v1/app_dashboard')).json.settings_changed).toBe(false);

    // While charging the live fields follow the charge point.
    await set('operator', [
      { key: 'FreeCharging', value: 1 },
      { key: 'AuthTimeout', value: 30 },
    ]);
    await h.sim('plug');
    await h.sim('charge');
    await h.step(2000);
    d = (await as('operator', 'GET', '/v1/app_dashboard')).json;
    const byKey = Object.fromEntries(d.groups[0].fields.map((f: any) => [f.key, f.value]));
    expect(byKey).toMatchObject({
      Dashboard_SystemState: 'charging',
      Dashboard_OcppState: 'charging',
      Dashboard_Power: 11040,
      Dashboard_Currents: [16, 16, 16],
    });
    await h.sim('unplug');
    await h.step(100);
    await set('operator', [{ key: 'FreeCharging', value: 0 }]);
  });
});
