import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client/sqlite3';
import { drizzle } from 'drizzle-orm/libsql/sqlite3';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { migrationsFolder, openDatabase } from '../../db/client.js';
import { preMigrationName } from '../../db/pre-migration-backup.js';

/**
 * A start that migrates a database holding data at an earlier schema level first keeps a copy of it as it was
 * (db/pre-migration-backup.ts): the earlier firmware's data, whole, beside the file; only the newest copy is kept; a
 * new database and an up-to-date one are not copied.
 */

let dir: string;
let tags: string[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cc-premigration-'));
  tags = (JSON.parse(await readFile(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] }).entries.map((e) => e.tag);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A database file at the schema level of the first `level` migrations (as an earlier firmware left it), with a row. */
async function earlierDatabase(file: string, level: number): Promise<void> {
  const folder = join(dir, `migrations-${level}`);
  await mkdir(join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(await readFile(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  await writeFile(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, level) }));
  for (const tag of tags.slice(0, level)) await copyFile(join(migrationsFolder(), `${tag}.sql`), join(folder, `${tag}.sql`));
  const client = createClient({ url: `file:${file}` });
  await migrate(drizzle(client), { migrationsFolder: folder });
  await client.execute({ sql: 'INSERT INTO key_values (key, value) VALUES (?, ?)', args: [`written at level ${level}`, 'kept'] });
  client.close();
}

const levelOf = async (file: string) => {
  const client = createClient({ url: `file:${file}` });
  try {
    const applied = Number((await client.execute('SELECT count(*) AS n FROM __drizzle_migrations')).rows[0]!.n);
    const rows = (await client.execute('SELECT key FROM key_values')).rows.map((r) => r.key);
    return { applied, rows };
  } finally {
    client.close();
  }
};

test('the database as the earlier firmware left it is copied before the migration; the live one is migrated', async () => {
  const file = join(dir, 'controller.db');
  const level = tags.length - 2;
  await earlierDatabase(file, level);
  const database = await openDatabase(`file:${file}`);
  const copy = preMigrationName(file, tags[level]!);
  expect(database.preMigration).toEqual({ file: copy });
  await database.close();
  expect((await stat(copy)).mode & 0o777).toBe(0o600); // login passwords are in it, as in the database
  expect(await levelOf(copy)).toEqual({ applied: level, rows: [`written at level ${level}`] });
  expect(await levelOf(file)).toEqual({ applied: tags.length, rows: [`written at level ${level}`] });

  // Started again: nothing to migrate, no copy made, the copy kept.
  const before = (await stat(copy)).mtimeMs;
  const again = await openDatabase(`file:${file}`);
  expect(again.preMigration).toEqual({ file: null });
  await again.close();
  expect((await stat(copy)).mtimeMs).toBe(before);
});

test('only the newest copy is kept', async () => {
  const file = join(dir, 'controller.db');
  await earlierDatabase(file, tags.length - 1);
  const older = preMigrationName(file, tags[1]!);
  await writeFile(older, 'an older copy');
  const database = await openDatabase(`file:${file}`);
  await database.close();
  expect((await readdir(dir)).filter((name) => name.includes('.before-'))).toEqual([`controller.db.before-${tags.at(-1)}`]);
});

test('a new database is not copied', async () => {
  const file = join(dir, 'controller.db');
  const database = await openDatabase(`file:${file}`);
  expect(database.preMigration).toEqual({ file: null });
  await database.close();
  expect((await readdir(dir)).filter((name) => name.includes('.before-'))).toEqual([]);
});

test('a copy that cannot be made is reported, and the migration goes on', async () => {
  const file = join(dir, 'controller.db');
  await earlierDatabase(file, tags.length - 1);
  // Its name taken by a directory: VACUUM INTO cannot write it.
  await mkdir(preMigrationName(file, tags.at(-1)!), { recursive: true });
  await writeFile(join(preMigrationName(file, tags.at(-1)!), 'x'), '');
  const database = await openDatabase(`file:${file}`);
  expect(database.preMigration.file).toBeNull();
  expect(database.preMigration.error).toMatch(/./);
  await database.close();
  expect((await levelOf(file)).applied).toBe(tags.length);
});
