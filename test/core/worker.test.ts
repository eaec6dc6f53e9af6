import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/config.js';
import { startController, type Controller } from '../../bin/start-controller.js';
import { CORE_LOST_EXIT_CODE } from '../../services/core-link.js';
import { CORE_NICE, LIVENESS_TIMEOUT_MS } from '../../services/core/protocol.js';
import { createLogger } from '../../services/logger.js';
import { FAILED, httpRequest, OPERATOR_PASSWORD, type HttpResult } from '../harness.js';
import { loginProof } from '../../machines/secrets.js';
import { until } from '../processes.js';

/**
 * The production arrangement: the charge-point core in its real worker thread (dist/services/core/worker.js, built
 * by `npm test`), on the real clock. Waits are for conditions, with a deadline; the rules behind them (debounce,
 * timeouts) are tested on the manual clock elsewhere.
 */

let root: string;
beforeAll(async () => (root = await mkdtemp(join(tmpdir(), 'cc-worker-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

async function login(port: number): Promise<string> {
  const { json } = await httpRequest(port, 'GET', '/v1/login');
  const res = await httpRequest(port, 'POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, json.token) } });
  expect(res.status).toBe(200);
  return res.json.session.id;
}

describe('the controller with its core in the worker thread', () => {
  let controller: Controller;
  let dataDir: string;
  let logs: string[];
  const http = (method: string, path: string, body?: unknown, session?: string): Promise<HttpResult> =>
    httpRequest(controller.port, method, path, { ...(body !== undefined ? { body } : {}), ...(session ? { session } : {}) });
  const view = async () => (await http('GET', '/sim')).json;

  async function start(): Promise<Controller> {
    logs = [];
    const logger = await createLogger({ logLevel: 'info', logFormat: 'json' }, new Writable({ write: (c, _e, done) => (logs.push(String(c)), done()) }));
    return startController({
      config: loadConfig({ PORT: '0', DATA_DIR: dataDir, OPERATOR_PASSWORD }),
      logger,
      showInitialPassword: () => undefined,
    });
  }

  beforeAll(async () => {
    dataDir = join(root, 'in-process');
    controller = await start();
  });
  afterAll(() => controller.close());

  it('charges: free charging, plug, the EV asks for energy, the contactor closes; a pause opens it, measured', async () => {
    const session = await login(controller.port);
    expect((await http('PATCH', '/v1/settings', { params: [{ key: 'FreeCharging', value: 1 }] }, session)).status).toBe(200);
    await http('POST', '/sim/plug');
    await http('POST', '/sim/charge');
    await until('charging', async () => (await http('GET', '/v1/system_state', undefined, session)).json.systemState === 'charging');
    expect((await view()).plant).toMatchObject({ contactorClosed: true, cableLocked: true, pwmCurrentA: 16 });
    expect((await http('GET', '/v1/transactions/active', undefined, session)).status).toBe(200);
    await http('POST', '/sim/pause');
    await until('contactor open', async () => !(await view()).plant.contactorClosed);
    const metrics = (await http('GET', '/metrics')).text;
    expect(metrics).toMatch(/^safety_reaction_seconds_count\{reaction="contactor_open_on_pause"\} 1$/m);
    expect(metrics).toMatch(/^eventloop_delay_max_seconds\{thread="core"\} [0-9.e-]+$/m);
  });

  it('the core thread runs ahead of the main thread: its own nice value raised, or the reason logged', () => {
    const line = logs.find((l) => l.includes('charge-point core thread'));
    expect(line, 'the priority line').toBeDefined();
    const logged = JSON.parse(line!) as { nice?: number; unchanged?: string };
    // Linux: each thread's nice value, field 19 of /proc/self/task/<tid>/stat (after the parenthesised name).
    const niceOf = (tid: string) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const nices = readdirSync('/proc/self/task').map(niceOf);
    const main = niceOf(String(process.pid));
    if (logged.nice !== undefined) {
      expect(logged.nice).toBe(CORE_NICE);
      expect(nices.filter((n) => n === CORE_NICE)).toHaveLength(1); // the core thread alone
      expect(main).not.toBe(CORE_NICE);
    } else {
      expect(logged.unchanged).toMatch(/^E[A-Z]+$/);
      expect(nices).not.toContain(CORE_NICE);
    }
  });

  it('the self-driven EV switches on its own, timed in the core: every switch to B is a measured reaction', async () => {
    const count = async () =>
      Number(/^safety_reaction_seconds_count\{reaction="contactor_open_on_pause"\} (\d+)$/m.exec((await http('GET', '/metrics')).text)?.[1]);
    const before = await count();
    expect((await http('POST', '/sim/ev', { alternateMs: 60 })).json.plant.alternateMs).toBe(60);
    await until('five more reactions', async () => (await count()) >= before + 5);
    expect((await http('POST', '/sim/ev', { alternateMs: 0 })).json.plant.alternateMs).toBe(0);
    // A period outside 10 ms … 1 h is refused and changes nothing.
    const bad = await http('POST', '/sim/ev', { alternateMs: 5 });
    expect([bad.status, bad.json]).toEqual([400, FAILED]);
  });

  it("the inspector shows the core's charge cycle, live, through the thread boundary", async () => {
    await controller.accounts.set('engineer', 'installer', 'engineer-secret-1');
    const { json } = await httpRequest(controller.port, 'GET', '/v1/login');
    const session = (
      await httpRequest(controller.port, 'POST', '/v1/login', { body: { username: 'engineer', password: loginProof('engineer-secret-1', json.token) } })
    ).json.session.id;
    const ticket = (await http('POST', '/inspect/ticket', undefined, session)).json.ticket;
    const events: string[] = [];
    const req = request({ host: '127.0.0.1', port: controller.port, path: `/inspect/events?ticket=${ticket}`, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => events.push(chunk));
    });
    req.end();
    try {
      await until('the snapshot', async () => events.join('').includes('event: snapshot'));
      expect(events.join('')).toMatch(/"systemId":"chargeCycle","status":"active","states":\[[^\]]*"operative"/);
      // The self-driven EV of the test before stopped wherever it was: from B, the EV asks for energy.
      if ((await view()).plant.vehicle === 'requesting') {
        await http('POST', '/sim/pause');
        await until('the charge point in B', async () => (await view()).chargePoint.type2State === 'b');
      }
      await http('POST', '/sim/charge');
      await until('the PILOT event from the core', async () => /"actor":"chargeCycle","type":"PILOT","detail":\{"level":"c"\}/.test(events.join('')));
      await until('the charge cycle charging', async () =>
        /"systemId":"chargeCycle".{0,300}"operative\.session\.transaction\.underLoad\.charging"/.test(events.join('')),
      );
    } finally {
      req.destroy();
    }
  });

  it('a graceful stop completes the running transaction (Reboot); a new controller in the same process starts its own core', async () => {
    // The test before saw the charge cycle charging through the inspector; the plant's contactor follows the outputs.
    await until('the contactor closed', async () => (await view()).plant.contactorClosed);
    await controller.close();
    controller = await start();
    const session = await login(controller.port);
    const [done] = (await http('GET', '/v1/transactions', undefined, session)).json;
    expect(done).toMatchObject({ consumption: expect.any(Number), endTransaction: expect.any(String) });
    const row = (await controller.database.db.query.transactions.findFirst())!;
    expect(row.stopReason).toBe('Reboot');
    expect((await view()).plant).toMatchObject({ vehicle: 'unplugged', contactorClosed: false });
  });
});

/** The fail-safe: a controller (test/fixtures/controller.mjs) with the real worker, stalled or broken on purpose. */
describe('fail-safe: a thread that stops answering ends the process', () => {
  const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'controller.mjs');

  async function launch(): Promise<{
    child: ChildProcess;
    port: number;
    stdout: string[];
    stderr: string[];
    exited: Promise<{ code: number | null; signal: string | null }>;
  }> {
    const dataDir = await mkdtemp(join(root, 'failsafe-'));
    const child = spawn(process.execPath, [FIXTURE], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', DATA_DIR: dataDir, OPERATOR_PASSWORD, LOG_FORMAT: 'json' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: string[] = [];
    const stderr: string[] = [];
    child.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        stdout.push(d.toString());
        const match = /"listening on http:\/\/127\.0\.0\.1:(\d+)"/.exec(stdout.join(''));
        if (match) resolve(Number(match[1]));
      });
      void exited.then(({ code }) => reject(new Error(`exited with ${code}: ${stderr.join('')}${stdout.join('')}`)));
    });
    return { child, port, stdout, stderr, exited };
  }

  async function chargingOn(port: number): Promise<void> {
    const session = await login(port);
    await httpRequest(port, 'PATCH', '/v1/settings', { session, body: { params: [{ key: 'FreeCharging', value: 1 }] } });
    await httpRequest(port, 'POST', '/sim/plug');
    await httpRequest(port, 'POST', '/sim/charge');
    await until('contactor closed', async () => (await httpRequest(port, 'GET', '/sim')).json.plant.contactorClosed === true);
  }

  it('the main thread stalls while charging: the core opens the contactor itself, says why, and ends the process', async () => {
    const c = await launch();
    await chargingOn(c.port);
    c.child.stdin!.write(`stall-main ${LIVENESS_TIMEOUT_MS * 3}\n`);
    const { code, signal } = await c.exited;
    expect([code, signal]).toEqual([null, 'SIGKILL']);
    const line = JSON.parse(
      c.stderr
        .join('')
        .trim()
        .split('\n')
        .find((l) => l.includes('main thread sent nothing'))!,
    );
    expect(line).toMatchObject({ level: 60, outputs: { contactorClosed: false, pwmDuty: null, cableLocked: false } });
  });

  it('the core stalls: the main thread logs why and exits with code 70', async () => {
    const c = await launch();
    await chargingOn(c.port);
    c.child.stdin!.write(`stall-core ${LIVENESS_TIMEOUT_MS * 3}\n`);
    const { code } = await c.exited;
    expect(code).toBe(CORE_LOST_EXIT_CODE);
    const fatal = c.stdout
      .join('')
      .split('\n')
      .find((l) => l.includes('charge-point core is lost'))!;
    expect(JSON.parse(fatal)).toMatchObject({ level: 60, reason: expect.stringMatching(/sent nothing for \d+ ms/) });
  });

  it('the core dies: the main thread logs why and exits with code 70', async () => {
    const c = await launch();
    c.child.stdin!.write('end-core\n');
    const { code } = await c.exited;
    expect(code).toBe(CORE_LOST_EXIT_CODE);
    const fatal = c.stdout
      .join('')
      .split('\n')
      .find((l) => l.includes('charge-point core is lost'))!;
    expect(JSON.parse(fatal)).toMatchObject({ level: 60, reason: expect.stringMatching(/thread ended/) });
  });

  it('a stall shorter than the limit trips nothing: the controller goes on charging', async () => {
    const c = await launch();
    await chargingOn(c.port);
    c.child.stdin!.write(`stall-main ${LIVENESS_TIMEOUT_MS / 3}\n`);
    c.child.stdin!.write(`stall-core ${LIVENESS_TIMEOUT_MS / 3}\n`);
    await until('answers again', async () => (await httpRequest(c.port, 'GET', '/sim')).status === 200);
    // A full liveness period later both threads still run and the vehicle still charges.
    const later = Date.now() + LIVENESS_TIMEOUT_MS * 1.5;
    await until('a liveness period passed', async () => Date.now() > later);
    expect((await httpRequest(c.port, 'GET', '/sim')).json.plant.contactorClosed).toBe(true);
    // Still running: it ends by the test's own signal (the fixture installs no handler), not by the fail-safe.
    c.child.kill('SIGTERM');
    expect(await c.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });
});
