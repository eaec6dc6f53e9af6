import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
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
    await old.execute(`INSERT INTO users (id, name, created_at) VALUES ('a1a1a1a1-0000-4000-8000-000000000001', 'Alice', 1), ('b2b2b2b2-0000-4000-8000-000000000002', 'Mallory', 2)`);
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
