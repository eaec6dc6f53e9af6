import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { loginProof } from '../machines/secrets.js';
import { loadConfig } from '../services/config.js';
import { startController, type Controller, type InspectionObserver } from '../bin/start-controller.js';
import { createLogger } from '../services/logger.js';
import { ManualClock } from './clock.js';
import { checkerFor, type ResponseChecker } from './openapi-check.js';
import type { ChargePointHardware, ReaderHardware } from '../drivers/types.js';
import type { EnergyControl, EnergyInputs } from '../services/energy/contracts.js';
import type { UpdateInstaller } from '../services/field-service/updates.js';

export const OPERATOR_PASSWORD = 'operator-secret-1';

export interface Harness {
  controller: Controller;
  /** Every actor timer and every timestamp (wall clock too) come from this clock; it starts at TEST_EPOCH. */
  clock: ManualClock;
  /** Every log line the controller wrote, as text. */
  logs: string[];
  /** Why the charge-point core was lost, each time (recorded here: the process would exit). */
  coreLost: string[];
  dataDir: string;
  /** HTTP to the running controller; `from` picks the local (client) address, e.g. 127.0.0.2. */
  http(method: string, path: string, opts?: RequestOptions): Promise<HttpResult>;
  /** Logs in as `username` over HTTP; returns the session id. */
  login(username?: string, password?: string, from?: string): Promise<string>;
  /** Calls a simulator control (`/sim/...`), failing the test when it is refused. */
  sim(path: string, body?: unknown): Promise<HttpResult>;
  /** Lets `ms` of clock time pass (CP debounce, meter polls, timers), then waits for the controller's work to finish. */
  step(ms?: number): Promise<void>;
  /** Stops the controller; `keepData` leaves the data directory for a restart. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
}

export interface RequestOptions {
  session?: string;
  body?: unknown;
  /** Sent as is (for malformed bodies); wins over `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  from?: string;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body parsed as JSON, or undefined when empty or not JSON. */
  json: any;
}

/** Sends one HTTP request to 127.0.0.1:`port`. */
export function httpRequest(port: number, method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
  const payload = opts.rawBody ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.session !== undefined) headers.authorization = opts.session;
  if (payload !== undefined) {
    headers['content-type'] ??= 'application/json';
    if (!headers['transfer-encoding']) headers['content-length'] ??= String(Buffer.byteLength(payload));
  }
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, localAddress: opts.from, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/** Where the test clock starts: 2026-06-01T08:00:00.000Z. */
export const TEST_EPOCH = Date.UTC(2026, 5, 1, 8, 0, 0);

/**
 * Starts a controller the way `npm start` does, on 127.0.0.1 and a free port, with a temporary data directory
 * (a real database file), simulated hardware, a manual clock for every timer and timestamp, and the log captured
 * in memory. The charge-point core runs on the test's thread behind the same messages as in its worker (the manual
 * clock drives both); test/core/worker.test.ts and the process tests run the real worker.
 */
export async function startHarness(
  opts: {
    dataDir?: string;
    env?: Record<string, string>;
    clock?: ManualClock;
    inspect?: InspectionObserver;
    /** Replaces charge-point devices of the simulated hardware (deliberately broken drivers for the model-based tests). */
    chargePoint?: (hardware: ChargePointHardware, clock: ManualClock) => ChargePointHardware;
    /** Replaces the simulated reader (a deliberately broken NFC face). */
    reader?: (hardware: ReaderHardware, clock: ManualClock) => ReaderHardware;
    /** Start as on real hardware, without the simulator (so without /sim). */
    withoutSimulator?: boolean;
    /** Restarts the controller (OCPP Reset); without it, as in the harness by default, Reset is refused. */
    restart?: () => void;
    /** Installs update files (OCPP UpdateFirmware); without it, as by default, UpdateFirmware is NotImplemented. */
    updates?: UpdateInstaller;
    /** Receives every OCPP frame both ways. */
    ocppFrame?: (direction: 'in' | 'out', text: string) => void;
    /** Energy management's control as shown and steered (a test double instead of the allocator loop's). */
    energy?: EnergyControl;
    /** The energy inputs (a scripted grid meter); none by default. */
    energyInputs?: EnergyInputs;
    /** The time zone of schedules (default: the process's). */
    timeZone?: string;
    /** The system's wall clock (default: the manual clock's time; a test sets it apart to play NTP's corrections). */
    wall?: () => number;
    /** Receives a generated operator password (first start, factory reset); by default it is dropped. */
    showInitialPassword?: (username: string, password: string) => void;
  } = {},
): Promise<Harness> {
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'cc-test-')));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, OPERATOR_PASSWORD, ...opts.env });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = await createLogger({ logLevel: 'info', logFormat: 'json' }, sink);
  const clock = opts.clock ?? new ManualClock(TEST_EPOCH);
  const coreLost: string[] = [];
  const controller = await startController({
    config,
    logger,
    core: 'thread',
    clock,
    now: opts.wall ?? (() => clock.now()),
    showInitialPassword: opts.showInitialPassword ?? (() => undefined),
    onCoreLost: (reason) => coreLost.push(reason),
    ...(opts.inspect ? { inspect: opts.inspect } : {}),
    ...(opts.chargePoint ? { chargePointHardware: (hw) => opts.chargePoint!(hw, clock) } : {}),
    ...(opts.reader ? { readerHardware: (hw) => opts.reader!(hw, clock) } : {}),
    ...(opts.withoutSimulator ? { withoutSimulator: true } : {}),
    ...(opts.restart ? { restart: opts.restart } : {}),
    ...(opts.updates ? { updates: opts.updates } : {}),
    ...(opts.ocppFrame ? { ocppFrame: opts.ocppFrame } : {}),
    ...(opts.energy ? { energy: opts.energy } : {}),
    ...(opts.energyInputs ? { energyInputs: opts.energyInputs } : {}),
    ...(opts.timeZone ? { timeZone: opts.timeZone } : {}),
  });
  // Every answer is checked against the API document (test/openapi-check.ts): status, content type, body.
  let checker: Promise<ResponseChecker> | undefined;
  const http = async (method: string, path: string, o?: RequestOptions) => {
    const res = await httpRequest(controller.port, method, path, o);
    (await (checker ??= controller.document().then(checkerFor))).check(method, path, res);
    return res;
  };
  return {
    controller,
    clock,
    logs,
    coreLost,
    dataDir,
    http,
    async login(username = 'operator', password = OPERATOR_PASSWORD, from?: string) {
      const { json } = await http('GET', '/v1/login', { from });
      const res = await http('POST', '/v1/login', { body: { username, password: loginProof(password, json.token) }, from });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
      return res.json.session.id as string;
    },
    async sim(path, body) {
      const res = await http('POST', `/sim/${path}`, body === undefined ? {} : { body });
      if (res.status !== 200) throw new Error(`sim ${path} refused: ${res.status} ${res.text}`);
      return res;
    },
    async step(ms = 50) {
      await clock.advance(ms);
      await controller.charging.settled();
      await controller.backend.settled();
    },
    async stop({ keepData = false } = {}) {
      await controller.close();
      if (!keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** An OperationFailed body (spec 2.1) with a non-empty cause. */
export const FAILED = { success: false, cause: expect.stringMatching(/\w/) };

export interface LoggedIn {
  h: Harness;
  session: string;
  /** A request with the session. */
  call(method: string, path: string, body?: unknown): Promise<HttpResult>;
}

/** One controller for the test file, started and logged in before its tests, stopped after them. */
export function useLoggedInController(): LoggedIn {
  const ctx = {
    call: (method: string, path: string, body?: unknown) => ctx.h.http(method, path, { session: ctx.session, body }),
  } as LoggedIn;
  beforeAll(async () => {
    ctx.h = await startHarness();
    ctx.session = await ctx.h.login();
  });
  afterAll(() => ctx.h.stop());
  return ctx;
}
