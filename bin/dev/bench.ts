/**
 * Performance bench of the controller process: `npm run bench`. Everything runs on 127.0.0.1.
 *
 * Measures, against the built controller run as a child process exactly as `npm start` runs it (the command line
 * of package.json's `start` script, JSON request logging on, stdout drained through a pipe):
 * - start time: from spawn to the "listening on" log line, once on a fresh data directory (creates and migrates
 *   the database) and four times as a restart on that same directory (median reported); target < 1 s each;
 * - resident memory (VmRSS from /proc) right after start and the maximum sampled every 100 ms under load (the load
 *   rounds below, then 30 s of load on the controller alone, long enough for V8's next full collection); targets
 *   (issue 34, decimal megabytes): after start RSS <= 110 MB of which anonymous (the process's own) <= 60 MB, under
 *   load RSS <= 128 MB;
 * - GET /v1/system_state with a logged-in session under autocannon (32 connections): p99 latency over every response
 *   of the measured rounds (target < 5 ms), every response 2xx, and requests per second relative to a bare Hono
 *   handler on @hono/node-server returning the same JSON body (target >= 0.8). The controller, the bare handler
 *   and the bare handler with the request log run side by side: after 12 s idle (IDLE_S), each gets a 2 s
 *   warm-up, then 30 rounds of 1 s each, one server after the other in an order that rotates every round. The
 *   ratio is the median of the 30 rounds' ratios (the lowest and highest are printed too): on a shared machine the
 *   speed available drifts over seconds (a single round's ratio ranges from about 0.3–0.5 to 1.1–1.3), and a
 *   single long run of each server, one after the other, measured the drift as much as the servers. With the
 *   rounds' spread measured here (robust standard deviation about 0.165), the median of 30 rounds has a standard
 *   error of about 0.04 (15 rounds: 0.05).
 * Also reports each server's CPU time per request and how the CPU was shared (server / this process, which runs
 * autocannon / everything else), so a run disturbed by other processes on the machine shows as such.
 *
 * The bare server is this same file run with `--bare` (port and body from BENCH_PORT and BENCH_BODY). Prints one
 * table; exits 0 when every target passes, 1 otherwise (also on any failure of the bench itself). With BENCH_DEBUG
 * set, every round's requests per second and server CPU per request go to stderr as well.
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { benchNfc, NFC_BAUD } from './bench-nfc.js';
import { benchEnergy, ENERGY_WATCHDOG_MS } from './bench-energy.js';
import { benchSafety, SAFETY_WATCHDOG_MS } from './bench-safety.js';
import {
  children,
  freePort,
  getJson,
  HOST,
  Latencies,
  loadAutocannon,
  login,
  median,
  PASSWORD,
  printTable,
  memoryMB,
  rssMB,
  spawnChild,
  startCommand,
  stopProcess,
  type Autocannon,
  type AutocannonResult,
  type Child,
  type Row,
} from './bench-tools.js';

const BARE_FLAG = '--bare';
/** `npm run bench -- --nfc`: only the NFC round trips (bin/dev/bench-nfc.ts). */
const NFC_FLAG = '--nfc';
/** `npm run bench -- --energy`: simulated days of energy management (bin/dev/bench-energy.ts). */
const ENERGY_FLAG = '--energy';
/** `npm run bench -- --safety`: the charge cycle's safety reactions under load (bin/dev/bench-safety.ts). */
const SAFETY_FLAG = '--safety';
const PATH = '/v1/system_state';

const STARTS = 5;
const CONNECTIONS = 32;
const WARMUP_S = 2;
/** Load rounds: each round runs every server for ROUND_S, in an order that rotates from round to round. */
const ROUNDS = 30;
const ROUND_S = 1;
/**
 * Then the controller alone under load for this long, for its memory: V8 runs its next full collection only once the
 * old generation has grown by several MB, which under this load takes about 20 s, so a shorter load would miss
 * the highest resident set.
 */
const SOAK_S = 30;
/**
 * Before the load, every server sits idle this long, as a charger's controller sits idle between requests. V8's
 * memory reducer runs its memory-reducing full collections about 8 s into an idle period: after this, every server
 * has had them (unless `--no-memory-reducer` is set, as `npm start` does) before any is measured; without the idle
 * period they could fall into one server's pause between its rounds and not the others' (docs/performance.md).
 */
const IDLE_S = 12;
const RSS_SAMPLE_MS = 100;
/** Above this (cores, on average), other processes on the machine disturbed a load run: the report says so. */
const OTHER_CPU_WARN_CORES = 0.1;
/** Hard stop of the whole bench, whatever hangs. */
const WATCHDOG_MS = 300_000;

const TARGET = { startMs: 1000, rssAfterStartMB: 110, anonAfterStartMB: 60, rssUnderLoadMB: 128, ratio: 0.8, p99Ms: 5 } as const;

// ---- bare server mode ----

/**
 * The baseline: a bare Hono app on @hono/node-server answering GET /v1/system_state with BENCH_BODY. With BENCH_LOG
 * set, the controller's own request log (withRequestLog on createLogger's stdout) wraps it: the difference to the
 * controller is then the session check, routing and the charge-point read alone.
 */
async function runBareServer(): Promise<void> {
  const port = Number(process.env.BENCH_PORT);
  const body = process.env.BENCH_BODY;
  if (!Number.isInteger(port) || port <= 0 || body === undefined) throw new Error('bare server: set BENCH_PORT and BENCH_BODY');
  const state = JSON.parse(body) as Record<string, unknown>;
  const app = new Hono();
  app.get(PATH, (c) => c.json(state));
  let fetch = app.fetch;
  if (process.env.BENCH_LOG) {
    // Loaded only here, so the plain baseline loads nothing of the controller.
    const { withRequestLog } = await import('../../api/request-log.js');
    const { createLogger } = await import('../../services/logger.js');
    fetch = withRequestLog(app.fetch, await createLogger({ logLevel: 'info', logFormat: 'json' }));
  }
  serve({ fetch, port, hostname: HOST }, (info) => {
    process.stdout.write(`${JSON.stringify({ msg: `listening on http://${HOST}:${info.port}` })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

/** A server under test and what its load rounds measured. */
interface Target {
  name: string;
  pid: number;
  url: string;
  headers: Record<string, string>;
  warmup?: AutocannonResult;
  rounds: AutocannonResult[];
  /** Every response's latency over all rounds. */
  latencies: Latencies;
  /** CPU seconds over all rounds: the server process, this process (autocannon), everything else on the machine. */
  cpu: { server: number; bench: number; other: number };
}

/** CPU seconds (user + system) `pid` used so far, from /proc/<pid>/stat (clock ticks of 10 ms). */
function processCpuS(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds (user + nice + system) the whole machine used so far, from /proc/stat. */
function machineCpuS(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
  return (Number(fields[1]) + Number(fields[2]) + Number(fields[3])) / 100;
}

/** One measured round against `target`, adding to its rounds and CPU figures. */
async function round(autocannon: Autocannon, target: Target): Promise<void> {
  const [server0, machine0, bench0] = [processCpuS(target.pid), machineCpuS(), process.cpuUsage()];
  const run = autocannon({ url: target.url, connections: CONNECTIONS, duration: ROUND_S, headers: target.headers });
  run.on('response', (_client, _status, _bytes, ms) => target.latencies.record(ms));
  target.rounds.push(await run);
  const server = processCpuS(target.pid) - server0;
  const benchUsage = process.cpuUsage(bench0);
  const bench = (benchUsage.user + benchUsage.system) / 1e6;
  target.cpu.server += server;
  target.cpu.bench += bench;
  target.cpu.other += Math.max(0, machineCpuS() - machine0 - server - bench);
  if (process.env.BENCH_DEBUG)
    process.stderr.write(
      `${target.name} ${target.rounds.at(-1)!.requests.average.toFixed(0)} cpu ${((server * 1e6) / target.rounds.at(-1)!['2xx']).toFixed(1)}\n`,
    );
}

/** Warms every target up (discarded), then ROUNDS rounds over all of them, rotating the order. */
async function loadRounds(autocannon: Autocannon, targets: Target[]): Promise<void> {
  for (const t of targets) t.warmup = await autocannon({ url: t.url, connections: CONNECTIONS, duration: WARMUP_S, headers: t.headers });
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < targets.length; i++) await round(autocannon, targets[(r + i) % targets.length]!);
  }
}

/** Sums of the rounds' counts. */
const total = (results: AutocannonResult[], key: '2xx' | 'non2xx' | 'errors'): number => results.reduce((sum, r) => sum + r[key], 0);
/** Requests per second over all rounds. */
const rate = (t: Target): number => t.rounds.reduce((sum, r) => sum + r['2xx'] + r.non2xx, 0) / t.rounds.reduce((sum, r) => sum + r.duration, 0);

// ---- main ----

async function bench(root: string): Promise<boolean> {
  const script = fileURLToPath(import.meta.url);
  const { nodeOptions, entry } = startCommand();
  const dataDir = join(root, 'data');
  const baseEnv = { PATH: process.env.PATH ?? '' };
  const controllerEnv = (port: number): NodeJS.ProcessEnv => ({
    ...baseEnv,
    PORT: String(port),
    HOST,
    DATA_DIR: dataDir,
    HARDWARE: 'sim',
    OPERATOR_PASSWORD: PASSWORD,
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  });

  // 1. Start times: the first start creates and migrates the database, the others restart on it.
  const startMs: number[] = [];
  let controller: Child | undefined;
  let port = 0;
  for (let i = 0; i < STARTS; i++) {
    port = await freePort();
    const child = spawnChild(`controller start ${i + 1}`, [...nodeOptions, entry], controllerEnv(port));
    startMs.push(await child.listening);
    if (i < STARTS - 1) await child.stop();
    else controller = child;
  }
  if (!controller) throw new Error('no controller');
  const afterStart = memoryMB(controller.pid);
  const rssAfterStart = afterStart.rss;
  const base = `http://${HOST}:${port}`;

  // 2. Session and the body the bare server will return.
  const session = await login(base);
  const headers = { authorization: session };
  const state = await getJson(`${base}${PATH}`, { headers });
  if (state.status !== 200) throw new Error(`GET ${PATH} with the session gave ${state.status} ${state.text}`);

  // 3. The bare server, and the bare server with the controller's request log (info only), on the same body.
  const barePort = await freePort();
  const bare = spawnChild('bare server', [...nodeOptions, script, BARE_FLAG], { ...baseEnv, BENCH_PORT: String(barePort), BENCH_BODY: state.text });
  const loggedPort = await freePort();
  const logged = spawnChild('bare server with request log', [...nodeOptions, script, BARE_FLAG], {
    ...baseEnv,
    BENCH_PORT: String(loggedPort),
    BENCH_BODY: state.text,
    BENCH_LOG: '1',
  });
  await Promise.all([bare.listening, logged.listening]);
  for (const p of [barePort, loggedPort]) {
    const check = await getJson(`http://${HOST}:${p}${PATH}`);
    if (check.status !== 200 || check.text !== state.text) throw new Error(`bare server answers ${check.status} ${check.text}`);
  }

  // 4. The load rounds, sampling the controller's memory throughout.
  const target = (name: string, pid: number, url: string, headers: Record<string, string> = {}): Target => ({
    name,
    pid,
    url,
    headers,
    rounds: [],
    latencies: new Latencies(),
    cpu: { server: 0, bench: 0, other: 0 },
  });
  const ctl = target('controller', controller.pid, `${base}${PATH}`, headers);
  const bareT = target('bare', bare.pid, `http://${HOST}:${barePort}${PATH}`);
  const loggedT = target('bare + log', logged.pid, `http://${HOST}:${loggedPort}${PATH}`);
  let rssMax = rssAfterStart;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, rssMB(controller.pid));
  }, RSS_SAMPLE_MS);
  const linesBefore = controller.lines();
  let soak: AutocannonResult;
  try {
    const autocannon = loadAutocannon();
    await new Promise((resolve) => setTimeout(resolve, IDLE_S * 1000));
    await loadRounds(autocannon, [ctl, bareT, loggedT]);
    await Promise.all([bare.stop(), logged.stop()]);
    soak = await autocannon({ url: ctl.url, connections: CONNECTIONS, duration: SOAK_S, headers });
  } finally {
    clearInterval(sampler);
  }
  rssMax = Math.max(rssMax, rssMB(controller.pid));
  const logLines = controller.lines() - linesBefore;

  // 5. Report.
  const ratios = ctl.rounds.map((r, i) => r.requests.average / bareT.rounds[i]!.requests.average);
  const ratio = median(ratios);
  const p99 = ctl.latencies.percentile(0.99);
  const all = [ctl.warmup!, ...ctl.rounds, soak];
  const ctlResponses = total(all, '2xx') + total(all, 'non2xx');
  const ctlBad = total(all, 'non2xx') + total(all, 'errors');
  const restartMedian = median(startMs.slice(1));
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const mb = (v: number) => `${v.toFixed(1)} MB`;
  const reqs = (t: Target) => `${rate(t).toFixed(0)} req/s`;
  const lat = (t: Target) => `${t.latencies.percentile(0.5).toFixed(2)} / ${t.latencies.percentile(0.99).toFixed(2)} ms`;
  const seconds = (t: Target) => t.rounds.reduce((sum, r) => sum + r.duration, 0);
  const cpuPerRequest = (t: Target) => ((t.cpu.server * 1e6) / Math.max(1, total(t.rounds, '2xx') + total(t.rounds, 'non2xx'))).toFixed(1);
  const cores = (t: Target) => [t.cpu.server, t.cpu.bench, t.cpu.other].map((v) => (v / seconds(t)).toFixed(2)).join(' / ');
  const otherCores = Math.max(...[ctl, bareT, loggedT].map((t) => t.cpu.other / seconds(t)));
  const loggedRatio = median(ctl.rounds.map((r, i) => r.requests.average / loggedT.rounds[i]!.requests.average));

  const rows: Row[] = [
    {
      figure: `throughput ratio controller/bare (median of ${ROUNDS} rounds)`,
      measured: ratio.toFixed(2),
      target: `>= ${TARGET.ratio}`,
      pass: ratio >= TARGET.ratio,
    },
    { figure: 'controller p99 latency (all rounds)', measured: `${p99.toFixed(2)} ms`, target: `< ${TARGET.p99Ms} ms`, pass: p99 < TARGET.p99Ms },
    {
      figure: 'controller responses 2xx (incl. warm-up)',
      measured: `${ctlResponses - ctlBad}/${ctlResponses}`,
      target: 'all',
      pass: ctlBad === 0 && ctlResponses > 0,
    },
    {
      figure: 'controller RSS after start',
      measured: mb(rssAfterStart),
      target: `<= ${TARGET.rssAfterStartMB} MB`,
      pass: rssAfterStart <= TARGET.rssAfterStartMB,
    },
    {
      figure: 'after start: anonymous (its own)',
      measured: mb(afterStart.anon),
      target: `<= ${TARGET.anonAfterStartMB} MB`,
      pass: afterStart.anon <= TARGET.anonAfterStartMB,
    },
    { figure: 'after start: file-backed (node binary, libraries)', measured: mb(afterStart.file) },
    {
      figure: `controller RSS max under load (rounds, then ${SOAK_S} s alone)`,
      measured: mb(rssMax),
      target: `<= ${TARGET.rssUnderLoadMB} MB`,
      pass: rssMax <= TARGET.rssUnderLoadMB,
    },
    { figure: 'start to listening, first start', measured: ms(startMs[0]!), target: `< ${TARGET.startMs} ms`, pass: startMs[0]! < TARGET.startMs },
    {
      figure: `start to listening, restart median of ${STARTS - 1}`,
      measured: ms(restartMedian),
      target: `< ${TARGET.startMs} ms`,
      pass: restartMedian < TARGET.startMs,
    },
    { figure: 'throughput ratio per round, lowest / highest', measured: `${Math.min(...ratios).toFixed(2)} / ${Math.max(...ratios).toFixed(2)}` },
    { figure: 'controller req/s', measured: reqs(ctl) },
    { figure: `controller req/s, ${SOAK_S} s alone`, measured: `${soak.requests.average.toFixed(0)} req/s` },
    { figure: 'bare req/s', measured: reqs(bareT) },
    { figure: 'bare + request log req/s (ratio controller/it)', measured: `${reqs(loggedT)} (${loggedRatio.toFixed(2)})` },
    { figure: 'controller latency p50 / p99', measured: lat(ctl) },
    { figure: 'bare latency p50 / p99', measured: lat(bareT) },
    {
      figure: 'bare non-2xx / errors',
      measured: `${total([bareT.warmup!, ...bareT.rounds], 'non2xx')} / ${total([bareT.warmup!, ...bareT.rounds], 'errors')}`,
    },
    { figure: 'controller log lines during load', measured: String(logLines) },
    {
      figure: 'server CPU per request, controller / bare / bare + log',
      measured: `${cpuPerRequest(ctl)} / ${cpuPerRequest(bareT)} / ${cpuPerRequest(loggedT)} µs`,
    },
    { figure: 'CPU cores server / bench / other, controller', measured: cores(ctl) },
    { figure: 'CPU cores server / bench / other, bare', measured: cores(bareT) },
  ];
  rows.push(...(await benchNfc()));
  console.log(
    `bench: GET ${PATH}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${ROUNDS} rounds of ${ROUND_S} s per server, node ${process.version}; ` +
      `starts ${startMs.map((v) => v.toFixed(0)).join(', ')} ms\n`,
  );
  printTable(rows);
  if (otherCores > OTHER_CPU_WARN_CORES) {
    console.log(`\nnote: other processes used up to ${otherCores.toFixed(2)} CPU cores during the load runs; throughput and latency are disturbed`);
  }
  const ok = rows.every((r) => r.pass !== false);
  console.log(`\n${ok ? 'all targets pass' : 'some targets FAIL'}`);

  await controller.stop();
  return ok;
}

/** The NFC part alone. */
async function mainNfc(): Promise<void> {
  let ok = false;
  try {
    const rows = await benchNfc();
    console.log(`bench: NFC request round trips over the simulated PN532 at ${NFC_BAUD} baud, node ${process.version}\n`);
    printTable(rows);
    ok = rows.every((r) => r.pass !== false);
    console.log(`\n${ok ? 'all targets pass' : 'some targets FAIL'}`);
  } catch (err) {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  }
  process.exit(ok ? 0 : 1);
}

async function main(run: (root: string) => Promise<boolean>, watchdogMs = WATCHDOG_MS): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'cc-bench-'));
  const emergencyStop = (why: string, code: number) => {
    process.stderr.write(`bench: ${why}; killing the children\n`);
    for (const child of children) child.kill('SIGKILL');
    rmSync(root, { recursive: true, force: true });
    process.exit(code);
  };
  setTimeout(() => emergencyStop(`still running after ${watchdogMs / 1000} s`, 1), watchdogMs).unref();
  process.once('SIGINT', () => emergencyStop('interrupted', 130));

  let ok = false;
  try {
    ok = await run(root);
  } catch (err) {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  } finally {
    await Promise.all([...children].map((child) => stopProcess(child)));
    await rm(root, { recursive: true, force: true });
  }
  process.exit(ok ? 0 : 1);
}

if (process.argv[2] === BARE_FLAG) await runBareServer();
else if (process.argv[2] === NFC_FLAG) await mainNfc();
else if (process.argv[2] === SAFETY_FLAG) void main(benchSafety, SAFETY_WATCHDOG_MS);
else if (process.argv[2] === ENERGY_FLAG) void main(() => benchEnergy(), ENERGY_WATCHDOG_MS);
else void main(bench);
