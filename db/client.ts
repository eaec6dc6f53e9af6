import { existsSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createClient as createFileClient, type Client } from '@libsql/client/sqlite3';
import { sql } from 'drizzle-orm';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { drizzle } from 'drizzle-orm/libsql/sqlite3';
import { migrate } from 'drizzle-orm/libsql/migrator';
import Libsql from 'libsql';
import { backUpBeforeMigrating, removePreMigrationCopies, type PreMigrationBackup } from './pre-migration-backup.js';
import * as schema from './schema.js';
import { createStorageState, isStorageFull, type StorageState } from './storage.js';

export type Db = LibSQLDatabase<typeof schema>;
/** What a write callback receives: the transaction, with the same query API as the database. */
export type WriteTx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Busy timeout for local files (ms). Writes are serialised in-process, so it only matters for outside writers. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The database: drizzle on libsql, with every write transaction serialised behind one in-process queue.
 * Overlapping interactive write transactions on libsql block the event loop for the busy timeout and then break
 * the connection (libsql-client-ts 352), so `write` is the only way to change data.
 */
export interface Database {
  /** Reads run directly (WAL readers never wait for the writer). */
  readonly db: Db;
  /**
   * Runs `work` in a write transaction, after every earlier write; its changes roll back when it throws. Answers
   * once they are committed (group commit: see createWriteQueue).
   */
  write<T>(work: (tx: WriteTx) => Promise<T>): Promise<T>;
  /** Whether the file system holding the database has room for writes (db/storage.ts). */
  readonly storage: StorageState;
  /** What the start did before it migrated the embedded file (db/pre-migration-backup.ts). */
  readonly preMigration: PreMigrationBackup;
  /** Deletes the copies made before migrations (a factory reset); nothing for a database server. */
  removePreMigrationCopies(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /**
   * Fault injection (tests, `npm run bench -- --safety`): every committed write takes this many milliseconds longer,
   * blocking the thread as a slow SD card's fsync does.
   */
  slowCommitMs?: number;
}

/** Blocks the calling thread for `ms` (the injected slow commit). */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Prepared statements a connection keeps (by SQL text, the least recently used dropped first). */
export const STATEMENT_CACHE_SIZE = 200;
const statementsOf = new WeakMap<Libsql.Database, Map<string, Libsql.Statement>>();

/**
 * Makes each embedded connection keep its prepared statements: libsql's client prepares every statement anew each
 * time it runs one (`executeStmt` of @libsql/client's sqlite3 client), which took 6 % of the main thread under the
 * safety bench's load, and 0.6 ms for each page of a transaction list. The client runs each statement to its end
 * at once (`all` or `run`, which reset it first) and sets its modes (`raw`, `safeIntegers`) every time, so one
 * prepared statement serves every later call with the same SQL on that connection.
 */
function keepPreparedStatements(): void {
  const prototype = Libsql.prototype as Libsql.Database & { preparesKept?: true };
  if (prototype.preparesKept) return;
  const prepare = prototype.prepare;
  prototype.prepare = function (this: Libsql.Database, source: string) {
    let kept = statementsOf.get(this);
    if (!kept) statementsOf.set(this, (kept = new Map<string, Libsql.Statement>()));
    const statement = kept.get(source);
    kept.delete(source);
    if (statement) {
      kept.set(source, statement);
      return statement;
    }
    const prepared = prepare.call(this, source);
    kept.set(source, prepared);
    if (kept.size > STATEMENT_CACHE_SIZE) kept.delete(kept.keys().next().value!);
    return prepared;
  } as typeof prototype.prepare;
  // A kept statement holds its connection's file open after close until it is collected: drop them with it, so a
  // closed database (a restart in the process) keeps no handle to the file.
  const close = prototype.close;
  prototype.close = function (this: Libsql.Database) {
    statementsOf.delete(this);
    return close.call(this);
  } as typeof prototype.close;
  prototype.preparesKept = true;
}

/**
 * Opens the database at `url` (`file:` path, or a `libsql://` / `http(s)://` / `ws(s)://` server), applies
 * migrations. The embedded file needs only libsql's local client; the remote clients (hrana over HTTP and WebSocket)
 * are loaded only for a server URL, which keeps 2–4 MB of resident memory out of the default process.
 */
export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<Database> {
  const isFile = url.startsWith('file:');
  if (isFile) keepPreparedStatements();
  const config = { url, timeout: BUSY_TIMEOUT_MS };
  const client: Client = isFile ? createFileClient(config) : (await import('@libsql/client')).createClient(config);
  if (isFile) {
    // Persistent in the file; FULL synchronous commits (libsql's default) make every completed write durable.
    await client.execute('PRAGMA journal_mode=WAL');
  }
  const db = drizzle(client, { schema });
  const file = isFile ? url.replace(/^file:(\/\/)?/, '') : null;
  const preMigration = file ? await backUpBeforeMigrating(client, file, migrationsFolder()) : { file: null };
  await migrate(db, { migrationsFolder: migrationsFolder() });

  const slowCommitMs = options.slowCommitMs ?? 0;
  const writes = createWriteQueue(db, {
    afterCommit: () => {
      if (slowCommitMs > 0) blockFor(slowCommitMs);
    },
  });
  return {
    db,
    write: writes.write,
    storage: writes.storage,
    preMigration,
    removePreMigrationCopies: async () => {
      if (file) await removePreMigrationCopies(file);
    },
    async close() {
      await writes.close();
      client.close();
    },
  };
}

/** A write waiting for its group. */
interface PendingWrite {
  work: (tx: WriteTx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Most writes one commit takes (more wait for the next one). */
export const GROUP_MAX_WRITES = 64;
/** A group takes no more writes once its work has run this long (ms): the commit is not put off for long. */
export const GROUP_MAX_WORK_MS = 10;

/**
 * Group commit: the writes queued while one commit runs share the next one. Each write runs in its own savepoint
 * of the group's transaction, in the order the writes were made: one that throws rolls back only its own changes and
 * gets its own error; the others see what the writes before them changed, as if each had committed alone. Every
 * write is answered after the commit that made it durable (or with the commit's error, all of its group together),
 * so a power cut never loses a write that was answered, and a request's write stays all-or-nothing. With fsync'd
 * commits (synchronous=FULL) the commit is what costs: a queue of N writes costs one commit, not N.
 */
export function createWriteQueue(db: Db, options: { afterCommit?: () => void; now?: () => number; wallNow?: () => number } = {}) {
  const { afterCommit = () => {}, now = () => performance.now(), wallNow = Date.now } = options;
  const storage = createStorageState(wallNow);
  const pending: PendingWrite[] = [];
  let running: Promise<void> | undefined;
  let closed = false;

  async function commitGroup(): Promise<void> {
    // Each group starts on a new turn of the event loop: timers (the heartbeat to the charge-point core) and I/O run
    // between commits, however many writes are queued and however slow each commit is.
    await nextTurn();
    /** The group's writes in order, each with what its work gave: its result, or the error it threw. */
    const group: Array<{ write: PendingWrite; ok: boolean; outcome: unknown }> = [];
    // While the disk is full, only a commit that wrote something shows there is room again (one that changed
    // nothing needs none): SQLite's count of changed rows on this connection, before and after the group's work.
    let wroteRows: boolean | undefined;
    /** A write of the group refused for want of space (the others may have committed). */
    let spaceError: unknown;
    try {
      await db.transaction(async (tx) => {
        const changesBefore = storage.state.fullSince === null ? undefined : await totalChanges(tx);
        const started = now();
        while (pending.length > 0 && group.length < GROUP_MAX_WRITES && (group.length === 0 || now() - started < GROUP_MAX_WORK_MS)) {
          const write = pending.shift()!;
          try {
            group.push({ write, ok: true, outcome: await tx.transaction((savepoint) => write.work(savepoint)) });
          } catch (error) {
            group.push({ write, ok: false, outcome: error });
            if (spaceError === undefined && isStorageFull(error)) spaceError = error;
          }
        }
        if (changesBefore !== undefined) wroteRows = (await totalChanges(tx)) > changesBefore;
      });
      afterCommit();
      if (spaceError !== undefined) storage.failed(spaceError);
      else if (wroteRows !== false) storage.wrote();
      for (const { write, ok, outcome } of group) (ok ? write.resolve : write.reject)(outcome);
    } catch (error) {
      // The group's transaction failed (BEGIN or COMMIT: the disk): none of its writes is durable.
      storage.failed(error);
      for (const { write, ok, outcome } of group) write.reject(ok ? error : outcome);
    }
  }

  function drain(): void {
    running ??= (async () => {
      while (pending.length > 0) await commitGroup();
      running = undefined;
    })();
  }

  return {
    storage: storage.state,
    /** Runs `work` inside a write transaction, after every earlier write; its changes roll back when it throws. */
    write<T>(work: (tx: WriteTx) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(new Error('database is closed'));
      return new Promise<T>((resolve, reject) => {
        pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
        drain();
      });
    },
    /** Refuses new writes and waits for the queued ones. */
    async close(): Promise<void> {
      closed = true;
      await running;
    },
  };
}

/** Rows changed on the transaction's connection so far (SQLite's total_changes()). */
async function totalChanges(tx: WriteTx): Promise<number> {
  const [row] = await tx.all<{ n: number }>(sql`SELECT total_changes() AS n`);
  return Number(row?.n ?? 0);
}

/**
 * Runs `step` over `items` in chunks of `size`, letting the event loop turn between chunks (inside a write too: the
 * transaction stays open, reads go on): a write of many rows (1,000 pairs of 1.3 KB take about 100 ms here) holds
 * the main thread a chunk at a time, not for the whole write.
 */
export async function inChunks<T>(items: readonly T[], size: number, step: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) {
    if (i > 0) await nextTurn();
    await step(items.slice(i, i + size));
  }
}

/** Page readers waiting for their turn, oldest first. */
const pageReaders: Array<() => void> = [];

function admitPageReader(): void {
  pageReaders.shift()?.();
  if (pageReaders.length > 0) setImmediate(admitPageReader);
}

/**
 * Resolves on a later turn of the event loop, for one waiting reader per turn in the whole process, oldest first:
 * readers of long results page by page (a full transaction history, the event log) call it between pages, so
 * however many of them run at once they read one page a turn between them, and the API's other requests are
 * served in the same turns as before. A reader alone reads a page every turn, as fast as before.
 */
export function nextPageTurn(): Promise<void> {
  return new Promise((resolve) => {
    pageReaders.push(resolve);
    if (pageReaders.length === 1) setImmediate(admitPageReader);
  });
}

/** The migrations folder, whether this module runs from source (db/) or compiled (dist/db/). */
export function migrationsFolder(): string {
  for (const candidate of ['./migrations', '../../db/migrations']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${path}/meta/_journal.json`)) return path;
  }
  throw new Error('db/migrations not found next to the database module');
}
