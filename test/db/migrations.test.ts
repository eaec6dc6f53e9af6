import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client/sqlite3';
import { drizzle } from 'drizzle-orm/libsql/sqlite3';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { expect, test } from 'vitest';
import { startHarness } from '../harness.js';

const MIGRATIONS = join(import.meta.dirname, '..', '..', 'db', 'migrations');

/** A database file as a controller of an older version left it: the migrations before the one tagged `tag`. */
async function databaseBefore(tag: string, dataDir: string): Promise<ReturnType<typeof createClient>> {
  const folder = join(dataDir, 'old-migrations');
  await mkdir(join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(await readFile(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8'));
  const index = journal.entries.findIndex((e: { tag: string }) => e.tag === tag);
  expect(index).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, index);
  await writeFile(join(folder, 'meta', '_journal.json'), JSON.stringify(journal));
  for (const { tag } of journal.entries) await cp(join(MIGRATIONS, `${tag}.sql`), join(folder, `${tag}.sql`));
  const client = createClient({ url: `file:${join(dataDir, 'controller.db')}` });
  await migrate(drizzle(client), { migrationsFolder: folder });
  return client;
}

test('migration 0003 resolves whitelist ids that differ only in letter case: the first added is kept, the others are recorded and logged once', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'cc-migration-'));
  try {
    const old = await databaseBefore('0003_whitelist_tag_case', dataDir);
    await old.execute(
      "INSERT INTO users (id, name, created_at) VALUES ('a1a1a1a1-0000-4000-8000-000000000001', 'Alice', 1), " +
        "('b2b2b2b2-0000-4000-8000-000000000002', 'Mallory', 2)",
    );
    await old.execute(`INSERT INTO whitelist (id, user_id, name, created_at) VALUES
      ('04A1B2C3', 'a1a1a1a1-0000-4000-8000-000000000001', 'Alice card', 10),
      ('OTHER', NULL, NULL, 11),
      ('04a1b2c3', 'b2b2b2b2-0000-4000-8000-000000000002', 'Mallory card', 12),
      ('04A1b2C3', NULL, NULL, 13),
      ('other-2', NULL, NULL, 14)`);
    old.close();

    const h = await startHarness({ dataDir });
    try {
      const session = await h.login();
      expect((await h.http('GET', '/v1/whitelist?type=local', { session })).json.tags).toEqual([
        { id: '04A1B2C3', userid: 'a1a1a1a1-0000-4000-8000-000000000001', name: 'Alice card' },
        { id: 'OTHER' },
        { id: 'other-2' },
      ]);
      const warnings = h.logs.map((l) => JSON.parse(l)).filter((l) => l.level === 40 && /whitelist entry/.test(l.msg));
      expect(warnings.map((w) => [w.id, w.keptId, w.userid, w.name])).toEqual([
        ['04a1b2c3', '04A1B2C3', 'b2b2b2b2-0000-4000-8000-000000000002', 'Mallory card'],
        ['04A1b2C3', '04A1B2C3', null, null],
      ]);
      expect(warnings[0].msg).toContain('whitelist_removed_duplicates');
      // The removed card no longer names a second entry: one DELETE revokes it in any case.
      expect((await h.http('DELETE', '/v1/whitelist?type=local&ids=04a1b2c3', { session })).status).toBe(204);
    } finally {
      await h.stop({ keepData: true });
    }

    const again = await startHarness({ dataDir });
    try {
      expect(again.logs.join('')).not.toContain('whitelist entry');
    } finally {
      await again.stop({ keepData: true });
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('migration 0006 gives the per-day sums of an older database their running totals: summaries of whole days come from them', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'cc-migration-'));
  try {
    const old = await databaseBefore('0006_transaction_day_totals', dataDir);
    const DAY = 86_400_000;
    // Completed transactions on days 20000, 20001 and 20005 (two on the first), as the older version summed them.
    const rows: Array<[number, number, number]> = [
      [20000 * DAY + 1000, 3_600_000, 7000],
      [20000 * DAY + 5000, 1_800_000, 1500],
      [20001 * DAY, 600_000, 200],
      [20005 * DAY + 99, 60_000, 40],
    ];
    for (const [i, [start, duration, wh]] of rows.entries()) {
      await old.execute({
        sql: `INSERT INTO transactions (id, tag_id, started_at, ended_at, meter_start_wh, meter_start_at, meter_last_wh, meter_last_at,
                                      max_power_w, stop_reason, checkpointed_at)
              VALUES (?, 'T', ?, ?, 0, ?, ?, ?, 1000, 'EVDisconnected', ?)`,
        args: [`0000000${i}-0000-4000-8000-000000000000`, start, start + duration, start, wh, start + duration, start + duration],
      });
    }
    await old.execute(`INSERT INTO transaction_days (day, count, duration_ms, consumption_wh)
      SELECT started_at / ${DAY}, count(*), sum(ended_at - started_at), sum(meter_last_wh - meter_start_wh) FROM transactions GROUP BY 1`);
    old.close();

    const h = await startHarness({ dataDir });
    try {
      const totals = await h.controller.database.db.all(
        sql`SELECT day, total_count, total_duration_ms, total_consumption_wh FROM transaction_days ORDER BY day`,
      );
      expect(totals).toEqual([
        { day: 20000, total_count: 2, total_duration_ms: 5_400_000, total_consumption_wh: 8500 },
        { day: 20001, total_count: 3, total_duration_ms: 6_000_000, total_consumption_wh: 8700 },
        { day: 20005, total_count: 4, total_duration_ms: 6_060_000, total_consumption_wh: 8740 },
      ]);
      const session = await h.login();
      const summary = async (query = '') => (await h.http('GET', `/v1/transactions/summary${query}`, { session })).json;
      expect(await summary()).toEqual({ transactionCount: 4, totalDuration: 6060, totalConsumption: 8740 });
      const iso = (day: number) => new Date(day * DAY).toISOString();
      expect(await summary(`?from=${iso(20001)}&to=${iso(20006)}`)).toEqual({ transactionCount: 2, totalDuration: 660, totalConsumption: 240 });
    } finally {
      await h.stop({ keepData: true });
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
