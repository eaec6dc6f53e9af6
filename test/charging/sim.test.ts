import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILED, startHarness, type Harness } from '../harness.js';

/** The simulator's HTTP controls (HARDWARE=sim) and the `npm run sim` CLI that drives them. */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.stop());

describe('/sim routes', () => {
  it('need no session and answer the simulator view', async () => {
    const res = await h.http('GET', '/sim');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      plant: { vehicle: 'unplugged', pilotLevel: 'a', contactorClosed: false, energyWh: 0 },
      chargePoint: { systemState: 'idle' },
      hmi: 'Available',
      loadLimitA: null,
    });
  });

  it('refuse controls that make no sense and malformed bodies with 400, changing nothing', async () => {
    for (const [method, path, body] of [
      ['POST', '/sim/charge', undefined],
      ['POST', '/sim/pause', undefined],
      ['POST', '/sim/unplug', undefined],
      ['POST', '/sim/tag', { id: 'xyz' }],
      ['POST', '/sim/tag', { id: '04A1B2C3', technology: 'BLE' }],
      ['POST', '/sim/fault', { fault: 'lightning' }],
      ['DELETE', '/sim/fault/lightning', undefined],
      ['POST', '/sim/temperature', { celsius: '90' }],
      ['POST', '/sim/temperature', { celsius: 500 }],
      ['POST', '/sim/ev', { maxCurrentA: -1 }],
      ['POST', '/sim/load-limit', { amps: 81 }],
      ['POST', '/sim/load-limit', {}],
    ] as const) {
      const res = await h.http(method, path, body === undefined ? {} : { body });
      expect([method, path, res.status, res.json], JSON.stringify(body)).toEqual([method, path, 400, FAILED]);
    }
    const malformed = await h.http('POST', '/sim/tag', { rawBody: '{"id":' });
    expect(malformed.status).toBe(400);
    expect((await h.http('GET', '/sim')).json.plant).toMatchObject({ vehicle: 'unplugged', faults: [], temperatureC: 25, evMaxCurrentA: 16 });
  });
});

describe('the simulator shows no personal data', () => {
  it('a running transaction shows its metering, never its tag or user', async () => {
    const session = await h.login();
    const user = (await h.http('POST', '/v1/users', { session, body: { userName: 'Mallory' } })).json.userId as string;
    await h.http('POST', '/v1/whitelist', { session, body: { type: 'local', command: 'add', tags: [{ id: '0A0B0C0D', userid: user }] } });
    await h.sim('plug');
    await h.step(50);
    await h.sim('tag', { id: '0A0B0C0D' });
    for (let i = 0; i < 20 && !(await h.http('GET', '/sim')).json.chargePoint.transaction; i++) await h.step(20);
    const view = await h.http('GET', '/sim');
    expect(view.json.chargePoint.transaction).toMatchObject({ consumption: 0, power: 0 });
    expect(view.text).not.toContain('0A0B0C0D');
    expect(view.text).not.toContain(user);
    // The API, with a session, shows them.
    expect((await h.http('GET', '/v1/system_state', { session })).json.transaction).toMatchObject({ tagId: '0A0B0C0D', userId: user });
    await h.sim('unplug');
    await h.step(50);
  });
});

describe('without the simulated plant (real hardware)', () => {
  it('there are no /sim routes', async () => {
    const real = await startHarness({ withoutSimulator: true });
    try {
      expect((await real.http('GET', '/sim')).status).toBe(404);
      expect((await real.http('POST', '/sim/plug')).status).toBe(404);
    } finally {
      await real.stop();
    }
  });
});

describe('npm run sim', () => {
  const SIM = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'dev', 'sim.js');
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [SIM, ...args], { env: { PATH: process.env.PATH ?? '', SIM_URL: `http://127.0.0.1:${h.controller.port}` }, encoding: 'utf8' });

  /** Asynchronous: spawnSync would block this process's event loop, and with it the controller under test. */
  const runAsync = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        [SIM, ...args],
        { env: { PATH: process.env.PATH ?? '', SIM_URL: `http://127.0.0.1:${h.controller.port}` } },
        (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );

  /**
   * Runs the CLI (another process, on real time) while the manual clock moves on in 20 ms steps (the CP debounce,
   * the reader's turns), a few milliseconds of real time apart so that the clock keeps moving until the CLI ends.
   */
  async function stepping(...args: string[]) {
    const p = runAsync(...args);
    let done = false;
    void p.finally(() => (done = true));
    while (!done) {
      await h.step(20);
      await new Promise((r) => setTimeout(r, 2));
    }
    return p;
  }

  it('drives the simulator and prints the state once the charge point has taken the command in', async () => {
    const session = await h.login();
    await h.http('POST', '/v1/whitelist', { session, body: { type: 'local', command: 'add', tags: [{ id: '04A1B2C3' }] } });
    let out = await stepping('plug');
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('vehicle connected, CP B');
    expect(out.stdout).toContain('charge point wait_for_auth / preparing / wait_for_auth');
    out = await stepping('tag', 'DEADBEEF');
    expect(out.stdout).toContain('tag refused (one long beep)');
    out = await stepping('tag', '04a1b2c3');
    expect(out.stdout).toContain('tag accepted (one short beep)');
    expect(out.stdout).toContain('charge point connected / suspendedev / authorized_for_charging');
    out = await stepping('limit', '10');
    expect(out.stdout).toContain('load limit 10');
    out = await stepping('charge');
    expect(out.stdout).toContain('vehicle requesting, CP C, PWM 10 A, contactor closed');
    expect(out.stdout).toContain('charge point charging / charging');
    out = await stepping('ev-alternate', '500');
    expect(out.stdout).toContain('the EV switches between C and B every 500 ms');
    out = await stepping('ev-alternate', '0');
    expect(out.stdout).not.toContain('switches');
    out = await stepping('fault', 'lightning');
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/fault must be one of/);
    out = await stepping('status');
    expect(out.stdout).toMatch(/charge point \w+/);
    await stepping('limit', 'none');
    await stepping('unplug');
  });

  it('explains itself when no controller answers or the command is unknown', () => {
    const unknown = run('fly');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('unknown command "fly"');
    expect(unknown.stderr).toContain('usage: npm run sim');
    const away = spawnSync(process.execPath, [SIM, 'status'], { env: { PATH: process.env.PATH ?? '', SIM_URL: 'http://127.0.0.1:9' }, encoding: 'utf8' });
    expect(away.status).toBe(2);
    expect(away.stderr).toContain('no controller answers at http://127.0.0.1:9');
  });
});
