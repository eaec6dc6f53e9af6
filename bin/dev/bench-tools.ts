/**
 * What the benches share (bin/dev/bench.ts, bin/dev/bench-safety.ts): autocannon, the controller as a child process run as
 * `npm start` runs it, its resident memory, logging in, and the printed table.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loginProof } from '../../machines/secrets.js';

export const HOST = '127.0.0.1';
export const PASSWORD = 'bench-operator-password';
export const LISTEN_TIMEOUT_MS = 10_000;
export const STOP_TIMEOUT_MS = 5_000;

// ---- autocannon (ships no types; a module augmentation of an untyped package is not allowed, so require it) ----

/** The parts of an autocannon histogram summary used here (requests per second). */
export interface Histogram {
  average: number;
  stddev: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
}

export interface AutocannonOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  /** Milliseconds a response may take (autocannon's default is 10 s). */
  timeout?: number;
}

export interface AutocannonResult {
  requests: Histogram;
  /** Seconds. */
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}

/** A running autocannon instance: its result, and an event for every response (latency in ms). */
export type AutocannonRun = PromiseLike<AutocannonResult> & {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): unknown;
  /** Ends the run early; the result then covers the time it ran. */
  stop(): void;
};
export type Autocannon = (opts: AutocannonOptions) => AutocannonRun;

/** Response latencies across several runs, in buckets of 10 µs up to 1 s (autocannon's own summary is per run, in whole ms). */
export class Latencies {
  static readonly BUCKET_MS = 0.01;
  readonly #counts = new Uint32Array(100_001);
  #total = 0;

  record(ms: number): void {
    this.#counts[Math.min(this.#counts.length - 1, Math.floor(ms / Latencies.BUCKET_MS))]!++;
    this.#total++;
  }

  /** The latency (upper edge of its bucket, ms) below which fraction `p` of the responses fall. */
  percentile(p: number): number {
    const rank = Math.ceil(p * this.#total);
    let seen = 0;
    for (let i = 0; i < this.#counts.length; i++) {
      seen += this.#counts[i]!;
      if (seen >= rank) return (i + 1) * Latencies.BUCKET_MS;
    }
    return Infinity;
  }
}

const require = createRequire(import.meta.url);
export const loadAutocannon = (): Autocannon => require('autocannon') as Autocannon;

// ---- child processes ----

export interface Child {
  readonly pid: number;
  /** Milliseconds from spawn to the "listening on" line; rejects on timeout or early exit. */
  readonly listening: Promise<number>;
  /** Lines the child wrote to stdout so far. */
  lines(): number;
  /** SIGTERM, then SIGKILL after STOP_TIMEOUT_MS; resolves once the process exited. */
  stop(): Promise<void>;
}

export const children = new Set<ChildProcess>();

function isListeningLine(line: string): boolean {
  try {
    const msg = (JSON.parse(line) as { msg?: unknown }).msg;
    return typeof msg === 'string' && msg.startsWith('listening on');
  } catch {
    return false;
  }
}

/**
 * `npm start`'s command line, from package.json (`node [options] <entry>`): the Node options and the entry script,
 * so the bench runs the controller exactly as `npm start` does (the memory settings included).
 */
export function startCommand(): { nodeOptions: string[]; entry: string } {
  const root = join(fileURLToPath(import.meta.url), '..', '..', '..', '..');
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [command, ...words] = (scripts.start ?? '').trim().split(/\s+/);
  const entryAt = words.findIndex((w) => !w.startsWith('-'));
  if (command !== 'node' || entryAt < 0) throw new Error(`package.json scripts.start is not "node [options] <entry>": ${scripts.start}`);
  return { nodeOptions: words.slice(0, entryAt), entry: join(root, words[entryAt]!) };
}

/** Spawns `node ...nodeArgs` with exactly `env`, draining and counting its stdout lines. */
export function spawnChild(name: string, nodeArgs: string[], env: NodeJS.ProcessEnv, watch?: { marker: string; onLine(line: string): void }): Child {
  const started = performance.now();
  const proc = spawn(process.execPath, nodeArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let spawnError: Error | undefined;
  const exited = new Promise<void>((resolve) => {
    proc.once('error', (err) => {
      spawnError = err;
      resolve();
    });
    proc.once('exit', (code, signal) => {
      if (process.env.BENCH_DEBUG) process.stderr.write(`${name} exited: ${code ?? signal}\n`);
      children.delete(proc);
      resolve();
    });
  });
  if (proc.pid === undefined) throw new Error(`${name}: spawn failed`);
  children.add(proc);

  let lineCount = 0;
  let partial: string | null = ''; // only kept until the "listening" line was seen; afterwards lines are just counted
  let stderrTail = '';
  let onListening: (ms: number) => void = () => undefined;

  let tail: Buffer = Buffer.alloc(0);
  proc.stdout!.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lineCount++;
    // Whole lines holding the watched marker go to the watcher (searched as bytes: under load most chunks have none).
    if (watch) {
      const buffer = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk;
      const end = buffer.lastIndexOf(10);
      const whole = buffer.subarray(0, end + 1);
      if (whole.includes(watch.marker)) for (const line of whole.toString('utf8').split('\n')) if (line.includes(watch.marker)) watch.onLine(line);
      tail = Buffer.from(buffer.subarray(end + 1));
    }
    if (partial === null) return;
    const text = partial + chunk.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    if (lines.some(isListeningLine)) {
      onListening(performance.now() - started);
      partial = null;
    }
  });
  proc.stderr!.on('data', (chunk: Buffer) => {
    if (process.env.BENCH_DEBUG) process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
  });

  const listening = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: no "listening on" line within ${LISTEN_TIMEOUT_MS} ms`)), LISTEN_TIMEOUT_MS);
    onListening = (ms) => {
      clearTimeout(timer);
      resolve(ms);
    };
    void exited.then(() => {
      clearTimeout(timer);
      const why = spawnError ? spawnError.message : `exited (code ${proc.exitCode}, signal ${proc.signalCode})`;
      reject(new Error(`${name}: ${why} before listening${stderrTail ? `:\n${stderrTail}` : ''}`));
    });
  });
  listening.catch(() => undefined); // observed by the caller; avoid an unhandled rejection after a stop

  return {
    pid: proc.pid,
    listening,
    lines: () => lineCount,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A port that was free a moment ago on HOST. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resident memory of `pid` in MB (10^6 bytes), from /proc/<pid>/status. */
export function rssMB(pid: number): number {
  return memoryMB(pid).rss;
}

/**
 * A process's resident memory (MB) and its two parts: anonymous (its heaps, stacks, buffers: its own) and
 * file-backed (the pages of the `node` binary and the libraries it runs, shared with every process that maps them).
 */
export function memoryMB(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    if (!match) throw new Error(`no ${name} for pid ${pid}`);
    return (Number(match[1]) * 1024) / 1e6;
  };
  return { rss: kB('VmRSS'), anon: kB('RssAnon'), file: kB('RssFile') };
}

// ---- HTTP ----

export async function getJson(url: string, init: RequestInit = {}): Promise<{ status: number; text: string; json: unknown }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

/** Logs in (as the operator by default, spec 5 item 3); returns the session id. */
export async function login(base: string, as: { username: string; password: string } = { username: 'operator', password: PASSWORD }): Promise<string> {
  const { json: tokenJson } = await getJson(`${base}/v1/login`);
  const token = (tokenJson as { token?: unknown } | undefined)?.token;
  if (typeof token !== 'string') throw new Error('GET /v1/login gave no token');
  const res = await getJson(`${base}/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: as.username, password: loginProof(as.password, token) }),
  });
  const id = (res.json as { session?: { id?: unknown } } | undefined)?.session?.id;
  if (res.status !== 200 || typeof id !== 'string') throw new Error(`login failed: ${res.status} ${res.text}`);
  return id;
}

// ---- report ----

export interface Row {
  figure: string;
  measured: string;
  target?: string;
  pass?: boolean;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export function printTable(rows: Row[]): void {
  const cells = rows.map((r) => [r.figure, r.measured, r.target ?? '', r.pass === undefined ? 'info' : r.pass ? 'PASS' : 'FAIL']);
  const head = ['figure', 'measured', 'target', 'result'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === 1 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

/** SIGTERM, SIGKILL after STOP_TIMEOUT_MS; for the clean-up of children left over after a failure. */
export function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}
