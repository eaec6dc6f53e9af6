import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startHarness, type Harness } from '../harness.js';

/** The RFID Mode setting, the simulator's "tap card" and "phone request" routes and CLI commands. */

let h: Harness;
let session: string;
beforeAll(async () => {
  h = await startHarness();
  session = await h.login();
});
afterAll(() => h.stop());

/** Waits for a request while stepping the clock (the phone is activated at the reader's next target turn). */
async function stepping<T>(p: Promise<T>): Promise<T> {
  let done = false;
  void p.finally(() => (done = true)).catch(() => {});
  for (let i = 0; i < 200 && !done; i++) await h.step(100);
  return p;
}

describe('RFID Mode and the simulator', () => {
  test('the RFID Mode setting switches the reader: RFID only by default, hybrid through PATCH /v1/settings', async () => {
    expect(h.controller.nfc.rfidMode()).toBe('rfid');
    const refused = await h.http('POST', '/sim/phone', { body: { request: '{"path":"/login","method":"GET","messageID":"1"}' } });
    expect(refused.status).toBe(400);
    expect(refused.json.cause).toMatch(/RFID only/);
    expect((await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'RFIDMode', value: 1 }] } })).status).toBe(200);
    expect(h.controller.nfc.rfidMode()).toBe('hybrid');
  });

  test('POST /sim/phone sends a request over NFC and answers the record; POST /sim/tap taps a card', async () => {
    const res = await stepping(
      h.http('POST', '/sim/phone', { body: { request: '{"path":"/system_state","method":"GET","authorization":"","messageID":"42"}' } }),
    );
    expect(res.status).toBe(200);
    expect(res.json.nfc.answer).toMatch(/^\{"messageID":"42","statusCode":401\},\{"logged_in":false/);
    expect(res.json.hmi).toBe('Reading card');
    expect((await h.http('POST', '/sim/phone', { body: { request: '' } })).status).toBe(400);
    expect((await h.http('POST', '/sim/tap', { body: { id: 'xyz' } })).status).toBe(400);
    // The link lasts a minute without activity; then the card is read at the next reader turn.
    await h.step(61_000);
    expect((await h.http('POST', '/sim/tap', { body: { id: '0A0B0C0D' } })).status).toBe(200);
    const hmi = async () => (await h.http('GET', '/sim')).json.hmi;
    expect(await hmi()).toBe('Available');
    for (let i = 0; i < 20 && (await hmi()) !== 'Reading card'; i++) await h.step(100);
    expect(await hmi()).toBe('Reading card');
  });

  test('npm run sim -- phone request … and tap card …', async () => {
    const SIM = join(import.meta.dirname, '..', '..', 'dist', 'bin', 'dev', 'sim.js');
    const run = (...args: string[]) =>
      new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
        execFile(
          process.execPath,
          [SIM, ...args],
          { env: { PATH: process.env.PATH ?? '', SIM_URL: `http://127.0.0.1:${h.controller.port}` } },
          (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const out = await stepping(run('phone', 'request', '{"path":"/login","method":"GET","authorization":"","messageID":"7"}'));
    expect(out.stdout).toMatch(/^\{"messageID":"7","statusCode":200\},\{"token":"[0-9a-f]{32}"\}\n$/);
    const tap = await run('tap', 'card', '04A1B2C3');
    expect(tap.status).toBe(0);
    expect(tap.stdout).toContain('charge point');
    const bad = await run('phone', 'call');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('phone request <request text>');
  });
});
