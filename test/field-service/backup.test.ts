import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { getTableName, is } from 'drizzle-orm';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { afterEach, describe, expect, test } from 'vitest';
import { dataTables, insertRows, migrationTags, openStagingDatabase, readTable, type TableData } from '../../db/tables.js';
import * as schema from '../../db/schema.js';
import { tablesDigest, writeBackup } from '../../services/field-service/backup-file.js';
import { startHarness, TEST_EPOCH, type Harness } from '../harness.js';
import { txRecord } from '../transactions.js';

/**
 * Backup and restore through the API (docs/field-service.md): a backup of one controller restored onto another
 * brings every table across; a damaged, foreign or newer file changes nothing; the replacement can keep its own
 * network settings and identity; the restore restarts the controller, which ends every session.
 */

const INSTALLER = { name: 'fitter', password: 'fitter-secret-1' };
let open: Harness[] = [];
afterEach(async () => {
  await Promise.all(open.map((h) => h.stop()));
  open = [];
});

/** A controller with an installer account, the restart recorded (the test starts it again on the same data). */
async function controller(dataDir?: string) {
  const restarts: number[] = [];
  const h = await startHarness({ ...(dataDir ? { dataDir } : {}), restart: () => restarts.push(Date.now()) });
  open.push(h);
  await h.controller.accounts.set(INSTALLER.name, 'installer', INSTALLER.password);
  const session = await h.login(INSTALLER.name, INSTALLER.password);
  const call = (method: string, path: string, body?: unknown) => h.http(method, path, { session, body });
  return { h, restarts, session, call };
}

/** The controller stopped and started again on its data (as the restart does), logged in as `who`. */
async function restarted(h: Harness, who = INSTALLER) {
  open = open.filter((o) => o !== h);
  await h.stop({ keepData: true });
  const again = await startHarness({ dataDir: h.dataDir });
  open.push(again);
  const session = await again.login(who.name, who.password);
  return { h: again, session, call: (method: string, path: string, body?: unknown) => again.http(method, path, { session, body }) };
}

async function everyTable(h: Harness): Promise<Record<string, TableData>> {
  const out: Record<string, TableData> = {};
  for (const t of await dataTables(h.controller.database.db)) out[t] = await readTable(h.controller.database.db, t);
  return out;
}

const sorted = (t: TableData) => t.rows.map((r) => JSON.stringify(r)).sort();
/** GET /v1/backup's bytes (the harness's requests read text). */
async function download(h: Harness, session: string): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`http://127.0.0.1:${h.controller.port}/v1/backup`, { headers: { authorization: session } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A controller with something in every table. */
async function filled() {
  const a = await controller();
  const user = (await a.call('POST', '/v1/users', { userName: 'Alice' })).json.userId;
  expect((await a.call('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: 'AA11', userid: user }, { id: 'BB22' }] })).status).toBe(200);
  expect((await a.call('POST', '/v1/map', { site: 'garage' })).status).toBe(201);
  const params = [
    { key: 'MaxCurrent', value: 20 },
    { key: 'OcppChargeBoxId', value: 'OLD-UNIT' },
    { key: 'LanMode', value: 1 },
    { key: 'LanIpAddress', value: '192.168.7.20' },
    { key: 'LanGateway', value: '192.168.7.1' },
  ];
  expect((await a.call('PATCH', '/v1/settings', { params })).status).toBe(200);
  const t = txRecord({ startedAt: TEST_EPOCH - 7_200_000, meterWh: 1000, lastWh: 8000, lastAt: TEST_EPOCH - 3_600_000, tagId: 'AA11', userId: user });
  await a.h.controller.transactions.begin(t);
  await a.h.controller.transactions.finish(t, { reason: 'Local', at: TEST_EPOCH - 3_600_000 });
  // Tables no API writes directly here: the OCPP data of a central system.
  await a.h.controller.database.write(async (tx) => {
    await tx.insert(schema.ocppLocalList).values({ idTag: 'CC33', status: 'Accepted' });
    await tx.insert(schema.ocppQueue).values({ action: 'StopTransaction', transactionId: t.id, payload: '{"meterStop":8000}', createdAt: TEST_EPOCH });
    await tx.insert(schema.ocppState).values({ key: 'localListVersion', value: '4' });
    await tx.insert(schema.ocppAuthCache).values({ idTag: 'DD44', status: 'Accepted', updatedAt: TEST_EPOCH });
  });
  await a.h.controller.events.settled();
  return a;
}

describe('backup', () => {
  test('GET /v1/backup holds every table of the schema, for role installer only', async () => {
    const a = await filled();
    // Through the harness once: the answer is checked against the API document.
    expect((await a.call('GET', '/v1/backup')).status).toBe(200);
    const res = await download(a.h, a.session);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="charge-controller-.*\.ccbackup"$/);
    const file = JSON.parse(gunzipSync(res.bytes).toString('utf8'));
    const tags = await migrationTags();
    expect(file).toMatchObject({ format: 'charge-controller-backup', version: 1, schema: { migrations: tags.length, latest: tags.at(-1) } });
    // Every table the schema declares is in it (and nothing else): a table added later cannot be left out.
    const declared = Object.values(schema)
      .filter((x) => is(x, SQLiteTable))
      .map((t) => getTableName(t as SQLiteTable))
      .sort();
    expect(Object.keys(file.tables).sort()).toEqual(declared);
    for (const name of ['users', 'whitelist', 'key_values', 'transactions', 'transaction_days', 'settings', 'events', 'ocpp_queue', 'ocpp_local_list']) {
      expect(file.tables[name].rows.length, name).toBeGreaterThan(0);
    }
    // Accounts with their passwords (what a login needs on the replacement).
    const accounts = file.tables.accounts;
    expect(accounts.rows.find((r: unknown[]) => r[0] === INSTALLER.name)[accounts.columns.indexOf('password')]).toBe(INSTALLER.password);

    const operator = await a.h.login();
    const refused = await a.h.http('GET', '/v1/backup', { session: operator });
    expect(refused.status).toBe(403);
  });
});

describe('restore', () => {
  test('onto a replacement: every table as in the backup, then a restart that ends the session', async () => {
    const a = await filled();
    const file = (await download(a.h, a.session)).bytes;
    const before = await everyTable(a.h);

    const b = await controller();
    const res = await b.call('POST', '/v1/backup/restore', { backup: file.toString('base64') });
    expect(res.status, res.text).toBe(200);
    await new Promise((r) => setImmediate(r));
    expect(b.restarts).toHaveLength(1);

    const b2 = await restarted(b.h);
    // The old session is gone with the restart.
    expect((await b2.h.http('GET', '/v1/session', { session: b.session })).status).toBe(401);
    const after = await everyTable(b2.h);
    for (const [table, data] of Object.entries(before)) {
      if (table === 'events') continue;
      expect(sorted(after[table]!), table).toEqual(sorted(data));
    }
    // The event log: the backup's, then the restore (and what followed it).
    const kinds = after.events!.rows.map((r) => r[after.events!.columns.indexOf('kind')]);
    expect(sorted(after.events!).filter((r) => sorted(before.events!).includes(r))).toHaveLength(before.events!.rows.length);
    expect(kinds).toContain('backup_restored');
    // The replacement now answers as the old unit did.
    expect((await b2.call('GET', '/v1/users')).json.users.map((u: any) => u.userName)).toEqual(['Alice']);
    expect((await b2.call('GET', '/v1/settings?params=OcppChargeBoxId')).json.params).toEqual([{ OcppChargeBoxId: 'OLD-UNIT' }]);
    expect((await b2.call('GET', '/v1/transactions/summary')).json).toMatchObject({ transactionCount: 1, totalConsumption: 7000 });
  });

  test('keepNetwork and keepIdentity keep the replacement’s own LAN settings, charge box id and OCPP tables', async () => {
    const a = await filled();
    const file = (await download(a.h, a.session)).bytes;
    const b = await controller();
    expect((await b.call('PATCH', '/v1/settings', { params: [{ key: 'OcppChargeBoxId', value: 'NEW-UNIT' }] })).status).toBe(200);
    const res = await b.call('POST', '/v1/backup/restore', { backup: file.toString('base64'), keepNetwork: true, keepIdentity: true });
    expect(res.status, res.text).toBe(200);
    const b2 = await restarted(b.h);
    const params = (await b2.call('GET', '/v1/settings?params=OcppChargeBoxId,LanMode,MaxCurrent')).json.params;
    expect(params).toEqual([{ OcppChargeBoxId: 'NEW-UNIT' }, { LanMode: { value: 0, label: expect.any(String) } }, { MaxCurrent: 20 }]);
    const tables = await everyTable(b2.h);
    expect(tables.ocpp_local_list!.rows).toEqual([]);
    expect((await b2.call('GET', '/v1/users')).json.users).toHaveLength(1);
  });

  test('a damaged, foreign, newer or malformed file is refused with its reason and changes nothing', async () => {
    const a = await filled();
    const good = (await download(a.h, a.session)).bytes;
    const json = JSON.parse(gunzipSync(good).toString('utf8'));
    const pack = (o: unknown) => gzipSync(JSON.stringify(o)).toString('base64');
    const resealed = (o: any) => pack({ ...o, sha256: tablesDigest(o.tables) });
    const cut = good.subarray(0, good.length - 40);
    const flipped = Buffer.from(good);
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    const edited = structuredClone(json);
    edited.tables.users.rows[0][1] = 'Mallory';
    const badRow = structuredClone(json);
    badRow.tables.users.rows.push([null, null, null]);
    const cases: Array<[string, unknown, RegExp]> = [
      ['cut short', { backup: cut.toString('base64') }, /damaged/],
      ['a flipped byte', { backup: flipped.toString('base64') }, /damaged|checksum/],
      ['edited without its checksum', { backup: pack(edited) }, /checksum/],
      ['a newer format', { backup: pack({ ...json, version: 2 }) }, /newer firmware/],
      ['a newer schema', { backup: resealed({ ...json, schema: { migrations: json.schema.migrations + 1, latest: '9999_future' } }) }, /newer firmware/],
      ['a row the schema refuses', { backup: resealed(badRow) }, /users/],
      ['not a backup', { backup: gzipSync('{"hello":1}').toString('base64') }, /not a backup/],
      ['not base64', { backup: '%%%' }, /base64/],
      ['an unknown option', { backup: good.toString('base64'), keepEverything: true }, /invalid|must be/],
    ];
    const b = await controller();
    const before = await everyTable(b.h);
    for (const [what, body, cause] of cases) {
      const res = await b.call('POST', '/v1/backup/restore', body);
      expect(res.status, what).toBe(400);
      expect(res.json.cause, what).toMatch(cause);
    }
    const after = await everyTable(b.h);
    for (const [table, data] of Object.entries(before)) if (table !== 'events') expect(sorted(after[table]!), table).toEqual(sorted(data));
    expect(b.restarts).toEqual([]);
  });

  test('a backup of an older firmware is migrated as a start would migrate its database', async () => {
    const b = await controller();
    // A database at schema level 6 (before the running day totals of migration 0006), as that firmware backed it up.
    const tags = await migrationTags();
    const old = await openStagingDatabase(join(b.h.dataDir, 'old-firmware.db'), 6);
    const tables: Record<string, TableData> = {};
    try {
      await insertRows(old.db, 'transaction_days', {
        columns: ['day', 'count', 'duration_ms', 'consumption_wh'],
        rows: [
          [20000, 2, 3_600_000, 5000],
          [20001, 1, 1_800_000, 2000],
        ],
      });
      await insertRows(old.db, 'accounts', {
        columns: ['username', 'password', 'role', 'created_at'],
        rows: [['old-installer', 'old-secret-12', 'installer', TEST_EPOCH]],
      });
      for (const t of await dataTables(old.db)) tables[t] = await readTable(old.db, t);
    } finally {
      await old.discard();
    }
    expect(tables.transaction_days!.columns).not.toContain('total_count');
    const file = writeBackup(
      { createdAt: new Date(TEST_EPOCH).toISOString(), firmware: '0.0.9', serialNumber: 'OLD', schema: { migrations: 6, latest: tags[5]! } },
      tables,
    );
    const res = await b.call('POST', '/v1/backup/restore', { backup: file.toString('base64') });
    expect(res.status, res.text).toBe(200);
    const b2 = await restarted(b.h, { name: 'old-installer', password: 'old-secret-12' });
    const days = await readTable(b2.h.controller.database.db, 'transaction_days');
    const total = days.columns.indexOf('total_count');
    expect(days.rows.map((r) => r[total])).toEqual([2, 3]);
  });

  test('refused below installer and while a transaction runs (409)', async () => {
    const b = await controller();
    const file = (await download(b.h, b.session)).bytes.toString('base64');
    await b.h.sim('plug');
    await b.h.step(50);
    expect((await b.call('PATCH', '/v1/settings', { params: [{ key: 'FreeCharging', value: 1 }] })).status).toBe(200);
    await b.h.sim('charge');
    await b.h.step(200);
    expect((await b.call('GET', '/v1/transactions/active')).status).toBe(200);
    const res = await b.call('POST', '/v1/backup/restore', { backup: file });
    expect(res.status).toBe(409);
    // One login at a time (spec 5 item 8): the operator's ends the installer's session.
    const operator = await b.h.login();
    expect((await b.h.http('POST', '/v1/backup/restore', { session: operator, body: { backup: file } })).status).toBe(403);
    expect(b.restarts).toEqual([]);
  });
});
