/**
 * The controller of the soak (bin/dev/soak.ts): run as `npm start` runs it on its own data directory, killed with
 * SIGKILL and restarted; its memory and disk writes sampled from /proc through every process it was; its database
 * checked after each kill on a copy of the files as the kill left them (opening the original would recover its WAL
 * before the controller does).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createClient } from '@libsql/client/sqlite3';
import { freePort, getJson, HOST, login, memoryMB, PASSWORD, spawnChild, startCommand, type Child } from './bench-tools.js';

export const DB_FILE = 'controller.db';
export const INSTALLER = { username: 'soak-installer', password: 'soak-installer-1' };

export interface MemorySample {
  /** Milliseconds since the soak began. */
  at: number;
  pid: number;
  rss: number;
  anon: number;
}

/** Bytes written to storage by the process so far (/proc/<pid>/io write_bytes). */
function writeBytes(pid: number): number {
  const match = /^write_bytes:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return match ? Number(match[1]) : 0;
}

export function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** `PRAGMA integrity_check` of a copy of the database and its WAL as they are now. */
export async function integrityOfCopy(dataDir: string): Promise<string> {
  const copy = mkdtempSync(join(tmpdir(), 'soak-integrity-'));
  try {
    for (const suffix of ['', '-wal']) {
      const from = join(dataDir, DB_FILE + suffix);
      if (existsSync(from)) copyFileSync(from, join(copy, DB_FILE + suffix));
    }
    const client = createClient({ url: `file:${join(copy, DB_FILE)}` });
    try {
      const rows = await client.execute('PRAGMA integrity_check');
      return rows.rows.map((r) => String(r[0] as string)).join('; ');
    } finally {
      client.close();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/** What the database holds at the end (the controller stopped): open transactions, the OCPP queue, the event log. */
export async function databaseFigures(dataDir: string): Promise<{ open: number; queued: number; events: number; eventBytes: number }> {
  const client = createClient({ url: `file:${join(dataDir, DB_FILE)}` });
  try {
    const one = async (sql: string) => Number((await client.execute(sql)).rows[0]![0]);
    return {
      open: await one('SELECT count(*) FROM transactions WHERE ended_at IS NULL'),
      queued: await one('SELECT count(*) FROM ocpp_queue'),
      events: await one('SELECT count(*) FROM events'),
      eventBytes: await one('SELECT coalesce(sum(length(data) + length(kind) + 8), 0) FROM events'),
    };
  } finally {
    client.close();
  }
}

export class SoakController {
  readonly #nodeOptions: string[];
  readonly #entry: string;
  readonly #t0 = performance.now();
  #child: Child | undefined;
  #session = '';
  #login: Promise<string> | undefined;
  /** write_bytes of processes that ended (their last sample), and of the current one at its last sample. */
  #writtenBefore = 0;
  #writtenNow = 0;
  readonly samples: MemorySample[] = [];
  base = '';
  starts = 0;

  constructor(
    readonly dataDir: string,
    readonly env: Record<string, string>,
  ) {
    ({ nodeOptions: this.#nodeOptions, entry: this.#entry } = startCommand());
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Whether the process runs (it may end itself: the core's liveness watch ends it when the main thread stalls). */
  alive(): boolean {
    if (!this.#child) return false;
    try {
      process.kill(this.#child.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  async start(): Promise<void> {
    const port = await freePort();
    const child = spawnChild('controller', [...this.#nodeOptions, this.#entry], {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST,
      DATA_DIR: this.dataDir,
      OPERATOR_PASSWORD: PASSWORD,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      ...this.env,
    });
    // A start that missed its time is stopped: a second process on the same data directory would follow it.
    await child.listening.catch(async (err: unknown) => {
      await child.stop();
      throw err;
    });
    this.#child = child;
    this.#writtenNow = 0;
    this.base = `http://${HOST}:${port}`;
    this.starts++;
    this.#session = await login(this.base, INSTALLER).catch(() => '');
  }

  /** SIGKILL, at once. */
  async kill(): Promise<void> {
    const child = this.#child!;
    this.sample();
    process.kill(child.pid, 'SIGKILL');
    await child.stop();
    this.#ended();
  }

  /** SIGTERM (a graceful stop). */
  async stop(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.sample();
    await child.stop();
    this.#ended();
  }

  #ended(): void {
    this.#writtenBefore += this.#writtenNow;
    this.#writtenNow = 0;
    this.#child = undefined;
  }

  /** Bytes written to storage by every controller process so far. */
  written(): number {
    return this.#writtenBefore + this.#writtenNow;
  }

  sample(): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      const m = memoryMB(pid);
      this.samples.push({ at: performance.now() - this.#t0, pid, rss: m.rss, anon: m.anon });
      this.#writtenNow = writeBytes(pid);
    } catch {
      // The process is gone (a kill in flight).
    }
  }

  /** The first installer account (`npm run accounts`), for the settings below; the controller must be stopped. */
  addInstaller(): void {
    const made = spawnSync(process.execPath, [join(dirname(this.#entry), 'accounts.js'), 'set', INSTALLER.username, '--role', 'installer', '--password', '-'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: this.dataDir },
      input: `${INSTALLER.password}\n`,
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new Error(`npm run accounts: ${made.status} ${made.stderr}`);
  }

  /** An API call as the installer; logs in again when the session ended. */
  async api(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; json: unknown }> {
    const call = () =>
      getJson(`${this.base}${path}`, {
        method,
        headers: { authorization: this.#session, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    let res = await call();
    if (res.status === 401) {
      // One login for every caller: the controller keeps one session per account, a second login replaces the first.
      const used = this.#session;
      this.#login ??= login(this.base, INSTALLER).finally(() => (this.#login = undefined));
      if (this.#session === used) this.#session = await this.#login;
      res = await call();
    }
    return res;
  }

  /** A simulator control (no session needed). */
  async sim(path: string, body?: unknown): Promise<SimView> {
    const res = await getJson(`${this.base}/sim${path}`, {
      method: path === '' ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      ...(path === '' ? {} : { body: JSON.stringify(body ?? {}) }),
    });
    if (res.status !== 200) throw new Error(`/sim${path}: ${res.status} ${res.text}`);
    return res.json as SimView;
  }

  async clearFault(fault: string): Promise<void> {
    await getJson(`${this.base}/sim/fault/${fault}`, { method: 'DELETE' });
  }
}

/** What the soak reads of the simulator's view. */
export interface SimView {
  plant: { vehicle: string; contactorClosed: boolean; energyWh: number };
  chargePoint: { systemState: string; transaction?: { transactionId: string; consumption: number } };
}
