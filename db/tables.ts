import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from '@libsql/client/sqlite3';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/libsql/sqlite3';
import { migrate } from 'drizzle-orm/libsql/migrator';
import { migrationsFolder, type Db, type WriteTx } from './client.js';
import * as schema from './schema.js';

/**
 * The database as whole tables, for what copies all of it (backup, restore, factory reset): which tables hold the
 * controller's data, their columns, and a staging database at an earlier schema level that is migrated forward.
 */

type Reader = Db | WriteTx;

/** A table's data as raw database rows: the column names, and each row's values in that order. */
export interface TableData {
  columns: string[];
  rows: Array<Array<string | number | null>>;
}

/** The migrations this firmware has, oldest first (their tags, as the journal names them). */
export async function migrationTags(): Promise<string[]> {
  const journal = JSON.parse(await readFile(join(migrationsFolder(), 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  return journal.entries.map((e) => e.tag);
}

/**
 * Every table that holds the controller's data: all of them but SQLite's own and drizzle's migration journal. Read
 * from the database itself, so a table a later migration adds is covered without a list to keep up.
 */
export async function dataTables(db: Reader): Promise<string[]> {
  const rows = await db.all<{ name: string }>(
    sql`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' ORDER BY name`,
  );
  return rows.map((r) => r.name);
}

/** The column names of `table` (a name from dataTables), in their order. */
export async function columnsOf(db: Reader, table: string): Promise<string[]> {
  const rows = await db.all<{ name: string }>(sql`SELECT name FROM pragma_table_info(${table})`);
  return rows.map((r) => r.name);
}

/** Every row of `table`, as raw values in the order of `columns`. */
export async function readTable(db: Reader, table: string): Promise<TableData> {
  const columns = await columnsOf(db, table);
  const rows = await db.values<Array<string | number | null>>(
    sql`SELECT ${sql.join(
      columns.map((c) => sql.identifier(c)),
      sql`, `,
    )} FROM ${sql.identifier(table)}`,
  );
  // libsql's rows are array-like objects (with the column names as properties too): plain arrays for the file.
  return { columns, rows: rows.map((row) => columns.map((_, i) => row[i] ?? null)) };
}

/** Rows an insert statement carries (SQLite allows 32,766 parameters; a row has at most about 15 columns). */
const ROWS_PER_INSERT = 200;

/** Inserts rows of raw values into `table` (column names checked by the caller against columnsOf). */
export async function insertRows(db: Reader, table: string, data: TableData): Promise<void> {
  const columns = sql.join(
    data.columns.map((c) => sql.identifier(c)),
    sql`, `,
  );
  for (let i = 0; i < data.rows.length; i += ROWS_PER_INSERT) {
    const values = data.rows.slice(i, i + ROWS_PER_INSERT).map(
      (row) =>
        sql`(${sql.join(
          row.map((cell) => sql`${cell}`),
          sql`, `,
        )})`,
    );
    await db.run(sql`INSERT INTO ${sql.identifier(table)} (${columns}) VALUES ${sql.join(values, sql`, `)}`);
  }
}

/** Deletes every row of `table`. */
export async function clearTable(db: Reader, table: string): Promise<void> {
  await db.run(sql`DELETE FROM ${sql.identifier(table)}`);
}

/** A database file of its own, at an earlier schema level, for data of that level to be brought forward. */
export interface StagingDatabase {
  db: Db;
  /** Applies this firmware's later migrations (as a start does to the live database). */
  migrateForward(): Promise<void>;
  /** Closes it and deletes its files. */
  discard(): Promise<void>;
}

/**
 * Creates a staging database at `file` with the first `level` migrations applied (its files are deleted first).
 * Data written at that level goes through the same migrations as the live database did (migrateForward).
 */
export async function openStagingDatabase(file: string, level: number): Promise<StagingDatabase> {
  const folder = `${file}.migrations`;
  const discardFiles = () => Promise.all([file, `${file}-wal`, `${file}-shm`, `${file}-journal`, folder].map((f) => rm(f, { recursive: true, force: true })));
  await discardFiles();
  const full = migrationsFolder();
  const journal = JSON.parse(await readFile(join(full, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  const entries = journal.entries.slice(0, level);
  await mkdir(join(folder, 'meta'), { recursive: true, mode: 0o700 });
  await writeFile(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const e of entries) await copyFile(join(full, `${e.tag}.sql`), join(folder, `${e.tag}.sql`));
  const client = createClient({ url: `file:${file}` });
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: folder });
  return {
    db,
    migrateForward: () => migrate(db, { migrationsFolder: full }),
    async discard() {
      client.close();
      await discardFiles();
    },
  };
}
