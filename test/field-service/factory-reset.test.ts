import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { FACTORY_RESET_CONFIRM_MS } from '../../api/routes/field-service.js';
import { preMigrationName } from '../../db/pre-migration-backup.js';
import { dataTables, readTable } from '../../db/tables.js';
import { startHarness, type Harness } from '../harness.js';

/**
 * POST /v1/factory-reset (docs/field-service.md): two steps (a confirmation token, valid a minute for the session
 * that asked, by the controller's clock), then every table emptied, a new one-time operator password shown as at the
 * first start, and a restart.
 */

const INSTALLER = { name: 'fitter', password: 'fitter-secret-1' };
let open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.stop()));
  open = [];
});

async function controller() {
  const restarts: number[] = [];
  const shown: Array<{ username: string; password: string }> = [];
  const h = await startHarness({ restart: () => restarts.push(1), showInitialPassword: (username, password) => shown.push({ username, password }) });
  open.push(h);
  await h.controller.accounts.set(INSTALLER.name, 'installer', INSTALLER.password);
  const session = await h.login(INSTALLER.name, INSTALLER.password);
  const call = (method: string, path: string, body?: unknown) => h.http(method, path, { session, body });
  expect((await call('POST', '/v1/users', { userName: 'Alice' })).status).toBe(201);
  expect((await call('POST', '/v1/map', { site: 'garage' })).status).toBe(201);
  return { h, restarts, shown, session, call };
}

const rowsIn = async (h: Harness) => {
  const out: Record<string, number> = {};
  for (const t of await dataTables(h.controller.database.db)) out[t] = (await readTable(h.controller.database.db, t)).rows.length;
  return out;
};

test('a token, then the reset: everything erased (the copy made before a migration too), a new operator password shown once, a restart', async () => {
  const a = await controller();
  // A copy of the database an earlier firmware left before its migration (db/pre-migration-backup.ts).
  const copy = preMigrationName(join(a.h.dataDir, 'controller.db'), '0009_energy_days');
  await writeFile(copy, 'the data before the update');
  const asked = await a.call('POST', '/v1/factory-reset');
  expect(asked.status).toBe(200);
  expect(asked.headers['cache-control']).toBe('no-store');
  expect(asked.json).toEqual({ confirmation: expect.stringMatching(/^[0-9a-f]{32}$/), expiresInSeconds: FACTORY_RESET_CONFIRM_MS / 1000 });
  expect(a.restarts).toEqual([]);

  await a.h.step(FACTORY_RESET_CONFIRM_MS - 1000);
  const done = await a.call('POST', '/v1/factory-reset', { confirmation: asked.json.confirmation });
  expect(done.status, done.text).toBe(200);
  await new Promise((r) => setImmediate(r));
  expect(a.restarts).toHaveLength(1);
  expect(a.shown).toEqual([{ username: 'operator', password: expect.stringMatching(/^[A-Za-z0-9]{16}$/) }]);
  await a.h.controller.events.settled();
  expect(existsSync(copy)).toBe(false);
  const rows = await rowsIn(a.h);
  // Nothing left but the new operator and the event that says what happened.
  expect(Object.entries(rows).filter(([, n]) => n > 0)).toEqual([
    ['accounts', 1],
    ['events', 1],
  ]);

  // Started again on the same data: the old accounts are gone, the shown password logs in.
  open = [];
  await a.h.stop({ keepData: true });
  const b = await startHarness({ dataDir: a.h.dataDir });
  open.push(b);
  await expect(b.login(INSTALLER.name, INSTALLER.password)).rejects.toThrow(/401/);
  const operator = await b.login('operator', a.shown[0]!.password);
  expect((await b.http('GET', '/v1/users', { session: operator })).json.users).toEqual([]);
  expect((await b.http('GET', '/v1/events', { session: operator })).json.events.map((e: any) => e.kind)).toContain('factory_reset');
});

test('an expired, wrong or foreign token erases nothing; the role must be installer', async () => {
  const a = await controller();
  const before = await rowsIn(a.h);
  const asked = await a.call('POST', '/v1/factory-reset');
  await a.h.step(FACTORY_RESET_CONFIRM_MS + 1);
  // Keep the session alive past the token's minute (60 s without a call ends it).
  const late = await a.call('POST', '/v1/factory-reset', { confirmation: asked.json.confirmation });
  expect(late.status).toBe(401);
  const session = await a.h.login(INSTALLER.name, INSTALLER.password);
  const call = (body?: unknown) => a.h.http('POST', '/v1/factory-reset', { session, body });
  const expired = await call({ confirmation: asked.json.confirmation });
  expect(expired.status).toBe(400);
  expect(expired.json.cause).toMatch(/another session|wrong/);

  const again = await call();
  await a.h.step(30_000);
  await call({ confirmation: 'x' }); // keeps the session alive; refused
  await a.h.step(FACTORY_RESET_CONFIRM_MS - 29_000);
  const tooLate = await call({ confirmation: again.json.confirmation });
  expect(tooLate.status).toBe(400);
  expect(tooLate.json.cause).toMatch(/expired/);
  const wrong = await call({ confirmation: '0'.repeat(32) });
  expect(wrong.status).toBe(400);
  expect((await call({ confirmation: 5 })).status).toBe(400);

  const operator = await a.h.login();
  expect((await a.h.http('POST', '/v1/factory-reset', { session: operator })).status).toBe(403);
  expect(a.restarts).toEqual([]);
  expect(a.shown).toEqual([]);
  const after = await rowsIn(a.h);
  expect({ ...after, events: 0 }).toEqual({ ...before, events: 0 });
});
