import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Role } from '../../db/schema.js';
import { startHarness, type Harness, type HttpResult } from '../harness.js';

/**
 * What the settings endpoints answer, byte for byte, against a snapshot (test/fixtures/settings-snapshot.txt): every
 * role, every language, /v1/settings, /v1/app_settings, /v1/app_dashboard (with and without descriptions), all
 * values by key, and a refused write that names every key's cause. It holds the catalogue's texts, order and
 * validation still while the catalogue's code is rearranged. Only the machine's serial number and the firmware's
 * version are replaced by placeholders (they differ between machines and releases).
 * `UPDATE_SETTINGS_SNAPSHOT=1 npx vitest run test/api/settings-snapshot.test.ts` writes the snapshot anew.
 */

const SNAPSHOT = join(import.meta.dirname, '..', 'fixtures', 'settings-snapshot.txt');
const ROLES: Role[] = ['user', 'operator', 'installer', 'manufacturer'];
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

async function as(role: Role, method: string, path: string, body?: unknown): Promise<HttpResult> {
  const login = async () => (current = { role, session: await h.login(role, PASSWORDS[role]) });
  if (current?.role !== role) await login();
  let res = await h.http(method, path, { session: current!.session, body });
  if (res.status === 401) {
    await login();
    res = await h.http(method, path, { session: current!.session, body });
  }
  return res;
}

/** A value that each field refuses (for its pattern where it has one), by the field's type and length as answered. */
function refusedValue(field: { key: string; type: string; validation?: { length?: [number, number] } }): unknown {
  if (field.type === 'int') return 1.5;
  if (field.type === 'enum') return 99;
  if (field.type === 'triple') return [1, 2];
  const [min, max] = field.validation?.length ?? [0, 64];
  // "é" fails the ASCII patterns; a space fails those that allow any printable ASCII but spaces.
  const char = field.key === 'OcppCaFile' || field.key.startsWith('Lan') ? 'é' : ' ';
  return char.repeat(Math.min(Math.max(min, 1), max));
}

test('the settings endpoints answer as the snapshot, byte for byte', async () => {
  const parts: string[] = [];
  const record = (title: string, res: HttpResult) => parts.push(`### ${title} → ${res.status}\n${res.text}\n`);
  const manufacturerView = (await as('manufacturer', 'GET', '/v1/settings')).json;
  const fields: any[] = manufacturerView.groups.flatMap((g: any) => g.sub_groups.flatMap((sg: any) => sg.fields));
  const keys = fields.map((f) => f.key as string);

  const pass = async (title: string) => {
    for (const role of ROLES) {
      record(`${title} GET /v1/settings as ${role}`, await as(role, 'GET', '/v1/settings'));
      record(`${title} GET /v1/app_settings as ${role}`, await as(role, 'GET', '/v1/app_settings'));
      record(`${title} GET /v1/app_dashboard as ${role}`, await as(role, 'GET', '/v1/app_dashboard'));
      record(`${title} GET /v1/app_dashboard?descriptions=0 as ${role}`, await as(role, 'GET', '/v1/app_dashboard?descriptions=0'));
    }
    record(`${title} GET /v1/settings?params=(every key) as manufacturer`, await as('manufacturer', 'GET', `/v1/settings?params=${keys.join(',')}`));
    const refused = await as('manufacturer', 'PATCH', '/v1/settings', { params: fields.map((f) => ({ key: f.key, value: refusedValue(f) })) });
    record(`${title} PATCH /v1/settings (every key refused or not) as manufacturer`, refused);
  };

  for (const language of [0, 1, 2, 3]) {
    expect((await as('user', 'PATCH', '/v1/settings', { params: [{ key: 'Language', value: language }] })).status).toBe(200);
    await pass(`Language ${language}:`);
  }
  // Values other than the defaults: enum labels of other options, a stored password (isSet 1), reboot_required.
  const changed = await as('manufacturer', 'PATCH', '/v1/settings', {
    params: [
      { key: 'Language', value: 0 },
      { key: 'OcppEnabled', value: 1 },
      { key: 'OcppPassword', value: 'a-password-of-20-chars' },
      { key: 'MqttEnabled', value: 1 },
      { key: 'MqttQos', value: 2 },
      { key: 'RFIDMode', value: 1 },
      { key: 'FreeCharging', value: 1 },
      { key: 'MaxCurrent', value: 10 },
      { key: 'PhaseCurrentLimits', value: [20, 25, 30] },
      { key: 'LogLevel', value: 3 },
    ],
  });
  record('changed values: PATCH /v1/settings', changed);
  await pass('Changed:');

  const { json } = await as('manufacturer', 'GET', '/v1/settings?params=SerialNumber_custom,FirmwareVersion_custom');
  const serial = json.params[0].SerialNumber_custom as string;
  const version = json.params[1].FirmwareVersion_custom as string;
  const text = parts.join('\n').replaceAll(JSON.stringify(serial), '"<serial number>"').replaceAll(JSON.stringify(version), '"<firmware version>"');
  if (process.env.UPDATE_SETTINGS_SNAPSHOT === '1') writeFileSync(SNAPSHOT, text);
  const snapshot = readFileSync(SNAPSHOT, 'utf8');
  // Compared section by section first, so a difference names the request it is in.
  const sections = (t: string) => t.split(/\n(?=### )/);
  const [got, want] = [sections(text), sections(snapshot)];
  for (let i = 0; i < Math.max(got.length, want.length); i++) expect(got[i], `section ${i}`).toBe(want[i]);
  expect(text === snapshot).toBe(true);
});
