import { gunzipSync } from 'node:zlib';
import { afterEach, expect, test } from 'vitest';
import { FIELDS } from '../../services/settings/index.js';
import { OPERATOR_PASSWORD, startHarness, type Harness } from '../harness.js';

/**
 * GET /v1/diagnostics (docs/field-service.md#diagnostics): what it holds, and that no secret is in it: every setting
 * declared write-only, every account password, the session id and the login token of the session store.
 */

const INSTALLER = { name: 'fitter', password: 'fitter-secret-password-1' };
let open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.stop()));
  open = [];
});

async function download(h: Harness, session: string) {
  const res = await fetch(`http://127.0.0.1:${h.controller.port}/v1/diagnostics`, { headers: { authorization: session } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

test('the bundle holds logs, events, settings, versions, metrics, core reactions and the database check, and no secret', async () => {
  const h = await startHarness();
  open.push(h);
  // Every secret setting, with a value found nowhere else.
  const secrets = [...FIELDS.values()].filter((f) => f.writeOnly).map((f) => ({ key: f.key, value: `Sx${f.key}9q7Lw3Zk5Tn2` }));
  expect(secrets.map((s) => s.key)).toEqual(expect.arrayContaining(['OcppPassword', 'MqttPassword', 'EnergyPushToken']));
  const set = await h.controller.settings.set({ role: 'manufacturer', username: 'test' }, secrets);
  expect(set.params.every((p) => p.success)).toBe(true);
  await h.controller.accounts.set(INSTALLER.name, 'installer', INSTALLER.password);
  const session = await h.login(INSTALLER.name, INSTALLER.password);
  const call = (method: string, path: string, body?: unknown) => h.http(method, path, { session, body });
  // A login token waiting in the session store.
  const token = (await h.http('GET', '/v1/login', { from: '127.0.0.3' })).json.token as string;
  // Something for the core to react to: a charge and an unplug while charging.
  expect((await call('PATCH', '/v1/settings', { params: [{ key: 'FreeCharging', value: 1 }] })).status).toBe(200);
  await h.sim('plug');
  await h.step(50);
  await h.sim('charge');
  await h.step(500);
  await h.sim('unplug');
  await h.step(500);
  await h.controller.events.settled();

  expect((await call('GET', '/v1/diagnostics')).status).toBe(200); // checked against the API document
  const res = await download(h, session);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/gzip');
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="diagnostics-.*\.json\.gz"$/);
  const text = gunzipSync(res.bytes).toString('utf8');
  const bundle = JSON.parse(text);

  expect(bundle).toMatchObject({ format: 'charge-controller-diagnostics', version: 1, databaseIntegrity: ['ok'] });
  expect(bundle.versions).toMatchObject({ firmware: expect.any(String), node: process.version, databaseSchema: expect.stringMatching(/^\d{4}_/) });
  expect(bundle.settings.FreeCharging).toBe(1);
  for (const { key } of secrets) expect(bundle.settings[key], key).toEqual({ isSet: true });
  expect(bundle.metrics).toMatch(/^# HELP /m);
  expect(bundle.events.map((e: any) => e.kind)).toEqual(expect.arrayContaining(['login', 'settings_changed', 'transaction_started', 'transaction_stopped']));
  // The recent log as the controller wrote it (request lines are at level debug: not there by default).
  expect(bundle.log.some((line: string) => line.includes('"msg":"listening on '))).toBe(true);
  expect(bundle.coreReactions.length).toBeGreaterThan(0);
  expect(bundle.coreReactions[0]).toEqual({ at: expect.any(String), reaction: expect.any(String), ms: expect.any(Number) });

  // No secret: not the settings', not a password, not the session store's.
  for (const { key, value } of secrets) expect(text.includes(value), key).toBe(false);
  for (const password of [INSTALLER.password, OPERATOR_PASSWORD]) expect(text.includes(password)).toBe(false);
  expect(text.includes(session)).toBe(false);
  expect(text.includes(token)).toBe(false);

  // Installers and higher only.
  const operator = await h.login();
  expect((await h.http('GET', '/v1/diagnostics', { session: operator })).status).toBe(403);
});
