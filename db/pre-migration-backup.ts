import { chmod, readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Client } from '@libsql/client/sqlite3';

/**
 * Before a start applies a new firmware's migrations to a database that holds data at an earlier schema level, a
 * copy of it as it was: `<file>.before-<first new migration>` beside it (SQLite's VACUUM INTO, a consistent snapshot
 * in one file). It is what lets the earlier firmware run again on its own data after an update (docs/field-service.md,
 * "Before a migration"). Only the newest copy is kept: an SD card is small, and an older one is of an older firmware.
 */

/** The copy's name for the database `file` before the migration `tag`. */
export const preMigrationName = (file: string, tag: string) => `${file}.before-${tag}`;

export interface PreMigrationBackup {
  /** The copy made, or null when nothing was to be migrated (or the database is new). */
  file: string | null;
  /** The copy could not be made (the migration goes on: the charger must charge); why. */
  error?: string;
}

export async function backUpBeforeMigrating(client: Client, file: string, migrationsFolder: string): Promise<PreMigrationBackup> {
  const journal = JSON.parse(await readFile(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  const known = await client.execute("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'");
  if (Number(known.rows[0]!.n) === 0) return { file: null }; // a new database: nothing to keep
  const applied = Number((await client.execute('SELECT count(*) AS n FROM __drizzle_migrations')).rows[0]!.n);
  const next = journal.entries[applied];
  if (applied === 0 || !next) return { file: null };
  const copy = preMigrationName(file, next.tag);
  try {
    await removePreMigrationCopies(file);
    await client.execute({ sql: 'VACUUM INTO ?', args: [copy] });
    await chmod(copy, 0o600); // it holds what the database holds (login passwords among it): the owner only
    return { file: copy };
  } catch (err) {
    await rm(copy, { force: true }).catch(() => {});
    return { file: null, error: (err as Error).message };
  }
}

/** Deletes every copy made before a migration of the database `file` (a factory reset erases them with the data). */
export async function removePreMigrationCopies(file: string): Promise<void> {
  const prefix = `${basename(file)}.before-`;
  for (const name of await readdir(dirname(file))) if (name.startsWith(prefix)) await rm(join(dirname(file), name), { force: true });
}
