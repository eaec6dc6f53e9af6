import { existsSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createClient as createFileClient, type Client } from '@libsql/client/sqlite3';
import type { LibSQLDatabase } from 'drizzle-orm/libsql';
import { drizzle } from 'drizzle-orm/libsql/sqlite3';
import { migrate } from 'drizzle-orm/libsql/migrator';
import * as schema from './schema.js';

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
  /** Runs `work` inside one write transaction, after every earlier write finished; rolls back when it throws. */
  write<T>(work: (tx: WriteTx) => Promise<T>): Promise<T>;
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

/**
 * Opens the database at `url` (`file:` path, or a `libsql://` / `http(s)://` / `ws(s)://` server), applies
 * migrations. The embedded file needs only libsql's local client; the remote clients (hrana over HTTP and WebSocket)
 * are loaded only for a server URL, which keeps 2–4 MB of resident memory out of the default process.
 */
export async function openDatabase(url: string, options: DatabaseOptions = {}): Promise<Database> {
  const isFile = url.startsWith('file:');
  const config = { url, timeout: BUSY_TIMEOUT_MS };
  const client: Client = isFile ? createFileClient(config) : (await import('@libsql/client')).createClient(config);
  if (isFile) {
    // Persistent in the file; FULL synchronous commits (libsql's default) make every completed write durable.
    await client.execute('PRAGMA journal_mode=WAL');
  }
  const db = drizzle(client, { schema });
  await migrate(db, { migrationsFolder: migrationsFolder() });

  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  const slowCommitMs = options.slowCommitMs ?? 0;
  return {
    db,
    write(work) {
      if (closed) return Promise.reject(new Error('database is closed'));
      // Each write starts on a new turn of the event loop: timers (the heartbeat to the charge-point core) and I/O
      // run between writes, however many are queued and however slow each commit is.
      const run = queue.then(async () => {
        await nextTurn();
        const result = await db.transaction((tx) => work(tx));
        if (slowCommitMs > 0) blockFor(slowCommitMs);
        return result;
      });
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      closed = true;
      await queue;
      client.close();
    },
  };
}

/** The migrations folder, whether this module runs from source (db/) or compiled (dist/db/). */
function migrationsFolder(): string {
  for (const candidate of ['./migrations', '../../db/migrations']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(`${path}/meta/_journal.json`)) return path;
  }
  throw new Error('db/migrations not found next to the database module');
}
