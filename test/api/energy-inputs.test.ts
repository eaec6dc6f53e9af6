import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FAILED, OPERATOR_PASSWORD, startHarness, type Harness, type HttpResult } from '../harness.js';

/** POST /v1/energy/grid and /v1/energy/grid-operator (docs/energy.md, Inputs) and the simulated site's /sim controls. */

let h: Harness;
let current: { username: string; session: string } | undefined;
const PASSWORD = 'secret-password-1';
const TOKEN = 'energy-push-token-0123456789';

beforeAll(async () => {
  h = await startHarness();
  await h.controller.accounts.set('tech', 'installer', PASSWORD);
});
afterAll(() => h.stop());

async function as(username: string, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult> {
  const password = username === 'operator' ? OPERATOR_PASSWORD : PASSWORD;
  if (current?.username !== username) current = { username, session: await h.login(username, password) };
  return h.http(method, path, { session: current.session, body, ...(headers ? { headers } : {}) });
}
async function settings(params: Record<string, unknown>) {
  const res = await as('tech', 'PATCH', '/v1/settings', { params: Object.entries(params).map(([key, value]) => ({ key, value })) });
  expect(res.status, res.text).toBe(200);
}
const inputs = () => h.controller.energyInputs.inputs;

describe('POST /v1/energy/grid', () => {
  test('needs a session of role installer or the token; refused while the settings do not take HTTP', async () => {
    expect((await h.http('POST', '/v1/energy/grid', { body: { powerW: 100 } })).status).toBe(401);
    const operator = await as('operator', 'POST', '/v1/energy/grid', { powerW: 100 });
    expect([operator.status, operator.json]).toEqual([403, FAILED]);
    const off = await as('tech', 'POST', '/v1/energy/grid', { powerW: 100 });
    expect([off.status, off.json]).toEqual([409, FAILED]);
    expect(inputs().gridPowerW()).toBeNull();
  });

  test('takes the power with its time; a bad body is 400 and changes nothing', async () => {
    await settings({ GridPowerSource: 3 });
    const ok = await as('tech', 'POST', '/v1/energy/grid', { powerW: [400, -300, 1100] });
    expect([ok.status, ok.json]).toEqual([200, { success: true }]);
    const taken = inputs().gridPowerW();
    expect(taken).toEqual({ value: [400, -300, 1100], at: h.clock.now() });
    await h.step(1000);
    for (const body of [{ powerW: 'x' }, { powerW: [1, 2] }, { powerW: 1, more: 2 }, { powerW: [1e9, 0, 0] }, [1, 2, 3]]) {
      const res = await as('tech', 'POST', '/v1/energy/grid', body);
      expect([res.status, res.json], JSON.stringify(body)).toEqual([400, FAILED]);
    }
    const malformed = await h.http('POST', '/v1/energy/grid', { session: current!.session, rawBody: '{"powerW": ' });
    expect(malformed.status).toBe(400);
    expect(inputs().gridPowerW()).toEqual(taken);
  });

  test('the bearer token (EnergyPushToken) stands in for a session, compared whole', async () => {
    const withToken = (token: string, body: unknown = { powerW: 900 }) =>
      h.http('POST', '/v1/energy/grid', { headers: { authorization: `Bearer ${token}` }, body });
    expect((await withToken(TOKEN)).status).toBe(401); // no token set: the header is no session either
    await settings({ EnergyPushToken: TOKEN });
    expect((await withToken(`${TOKEN}x`)).status).toBe(401);
    expect((await withToken(TOKEN.slice(0, -1))).status).toBe(401);
    const ok = await withToken(TOKEN);
    expect([ok.status, ok.json]).toEqual([200, { success: true }]);
    expect(inputs().gridPowerW()?.value).toEqual([300, 300, 300]);
    expect((await withToken(TOKEN, { powerW: null })).status).toBe(400);
    // Never shown, never logged.
    expect(h.logs.join('').includes(TOKEN)).toBe(false);
  });
});

describe('POST /v1/energy/grid-operator', () => {
  test('each push is the heartbeat; W or A per phase; a bad body changes nothing', async () => {
    expect((await as('tech', 'POST', '/v1/energy/grid-operator', { limitW: 4200 })).status).toBe(409);
    await settings({ GridOperatorSource: 2 });
    expect(inputs().gridOperator()).toEqual({ value: null, at: 0 });
    expect((await as('tech', 'POST', '/v1/energy/grid-operator', { limitA: 10 })).status).toBe(200);
    const taken = inputs().gridOperator();
    expect(taken).toEqual({ value: 6900, at: h.clock.now() });
    await h.step(1000);
    for (const body of [{ limitW: -1 }, { limitW: 1, limitA: 1 }, { limit: 5 }, { limitW: '5' }]) {
      expect((await as('tech', 'POST', '/v1/energy/grid-operator', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect(inputs().gridOperator()).toEqual(taken);
    expect((await as('tech', 'POST', '/v1/energy/grid-operator', { limitW: null })).status).toBe(200);
    expect(inputs().gridOperator()).toEqual({ value: null, at: h.clock.now() });
  });
});

describe('the simulated site (/sim)', () => {
  test('the grid meter twin measures house + EV − PV; the day runs time-compressed', async () => {
    await settings({ GridPowerSource: 1, GridMeterAddress: 5 });
    const day = await h.sim('day', { profile: 'sunny', speed: 60, startHour: 12, seed: 3 });
    expect(day.json.site.day).toMatchObject({ profile: 'sunny', speed: 60, hour: 12 });
    await h.step(2000);
    const site = (await h.http('GET', '/sim')).json.site;
    expect(site.day.hour).toBeCloseTo(12 + 2 / 60, 6);
    const grid = inputs().gridPowerW();
    expect(grid?.at).toBeGreaterThan(h.clock.now() - 1500);
    // Noon on a sunny day: PV exceeds the house, the grid meter sees export.
    expect(grid!.value.reduce((a, b) => a + b, 0)).toBeLessThan(-3000);
    const step = await h.sim('house', { stepW: [6000, 0, 0] });
    expect(step.json.site.houseStepW).toEqual([6000, 0, 0]);
    await h.step(1000);
    expect(inputs().gridPowerW()!.value[0]).toBeGreaterThan(grid!.value[0] + 5000);
    for (const [path, body] of [
      ['day', { profile: 'rainy' }],
      ['day', { speed: 0 }],
      ['house', { stepW: [1, 2] }],
      ['ripple', { closed: 'yes' }],
    ] as const) {
      const res = await h.http('POST', `/sim/${path}`, { body });
      expect([res.status, res.json], JSON.stringify(body)).toEqual([400, FAILED]);
    }
    expect((await h.http('GET', '/sim')).json.site.day.speed).toBe(60);
  });

  test('the ripple-control contact: closed dims to GridOperatorDimmedLimit', async () => {
    await settings({ GridOperatorSource: 3, GridOperatorDimmedLimit: 5000 });
    // The core reads the contact (its hardware's twin) and reports it; until then the failsafe applies.
    expect(inputs().gridOperator()).toEqual({ value: null, at: 0 });
    await h.step(0);
    expect(inputs().gridOperator()).toEqual({ value: null, at: h.clock.now() });
    const closed = await h.sim('ripple', { closed: true });
    expect(closed.json.site.rippleContactClosed).toBe(true);
    await h.step(0);
    expect(inputs().gridOperator()).toEqual({ value: 5000, at: h.clock.now() });
  });
});

describe('npm run sim -- day / house / ripple', () => {
  const SIM = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'dev', 'sim.js');
  /** The CLI in another process (asynchronous: the controller under test runs in this one). */
  const run = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [SIM, ...args],
        { env: { PATH: process.env.PATH ?? '', SIM_URL: `http://127.0.0.1:${h.controller.port}` } },
        (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );

  test('sets the day, a house load step and the contact, and prints the site', async () => {
    let out = await run('day', 'cloudy', '--speed', '60', '--start', '9.5', '--seed', '4');
    expect(out.stdout).toMatch(/day cloudy 09:30 \(×60\); house \d+ W, PV \d+ W, EV 0 W, grid -?\d+ W/);
    expect((await h.http('GET', '/sim')).json.site.day).toMatchObject({ profile: 'cloudy', speed: 60, seed: 4 });
    out = await run('house', '0', '1500', '0');
    expect(out.status).toBe(0);
    expect((await h.http('GET', '/sim')).json.site.houseStepW).toEqual([0, 1500, 0]);
    out = await run('ripple', 'open');
    expect(out.stdout).toContain('ripple contact open');
    out = await run('day', 'cloudy', '--speed', '0');
    expect([out.status, out.stderr]).toEqual([2, expect.stringContaining('speed must be 1 to 3600')]);
    out = await run('day', 'cloudy', '--fast');
    expect(out.stderr).toContain('unknown option "--fast"');
  });
});
