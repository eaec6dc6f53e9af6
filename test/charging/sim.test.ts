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
  const SIM = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'sim.js');
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [SIM, ...args], { env: { PATH: process.env.PATH ?? '', SIM_URL: `http://127.0.0.1:${h.controller.port}` }, encoding: 'utf8' });

  /** Asynchronous: spawnSync would block this process's event loop, and with it the controller under test. */
  const runAsync = (...args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [SIM, ...args], { env: { PATH: process.env.PATH ?? '', SIM_URL: `http://127.0.0.1:${h.controller.port}` } }, (err, stdout, stderr) =>
        resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );

  it('drives the simulator and prints what it shows', async () => {
    let out = await runAsync('plug');
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('vehicle connected, CP B');
    out = await runAsync('limit', '10');
    expect(out.stdout).toContain('load limit 10');
    out = await runAsync('charge');
    expect(out.stdout).toContain('vehicle requesting, CP C');
    out = await runAsync('fault', 'lightning');
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/fault must be one of/);
    out = await runAsync('status');
    expect(out.stdout).toMatch(/charge point \w+/);
    await runAsync('limit', 'none');
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
