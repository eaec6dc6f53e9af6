import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { httpRequest } from '../harness.js';
import { killHard, launch, login, until, type Running } from '../processes.js';
import { startRawCentralSystem, type RawCentralSystem } from './raw-central-system.js';
import { ocppSettings, writeSettings } from './support.js';

/**
 * Issue 29 item 2: a transaction cut by a power loss (kill -9 of the compiled controller, charging offline) is
 * stopped with the last reading that was committed or sent, and its time, and /v1/transactions says the same as
 * the independent central system receives.
 */

let dataDir: string;
beforeAll(async () => (dataDir = await mkdtemp(join(tmpdir(), 'cc-ocpp-cut-'))));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const TAG = '04A1B2C3';
const PASSWORD = 'operator-secret-1';

test('the PowerLoss StopTransaction carries the last committed reading and its time; /v1/transactions agrees', async () => {
  // The central system is down while the transaction runs: its port, closed.
  const down = await startRawCentralSystem();
  const port = Number(new URL(down.url).port);
  await down.close();
  await writeSettings(dataDir, ocppSettings(down, { OcppMeterValueSampleInterval: 1 }));
  const env = { DATA_DIR: dataDir, OPERATOR_PASSWORD: PASSWORD };
  let run: Running = await launch(env);
  let cs: RawCentralSystem | undefined;
  try {
    let session = await login(run.port, PASSWORD);
    const api = (method: string, path: string, body?: unknown) => httpRequest(run.port, method, path, { session, body });
    const sim = async (path: string, body?: unknown) =>
      expect((await httpRequest(run.port, 'POST', `/sim/${path}`, body === undefined ? {} : { body })).status).toBe(200);
    expect((await api('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: TAG }] })).status).toBe(200);
    await sim('plug');
    await until('waiting for a tag', async () => (await api('GET', '/v1/system_state')).json.systemState === 'wait_for_auth');
    await sim('tag', { id: TAG });
    await sim('charge');
    await until('charging', async () => (await api('GET', '/v1/system_state')).json.transaction?.consumption >= 2);
    await sleep(3_500); // sampled meter values after the checkpoint the charging state made (checkpoints every 10 s)
    await killHard(run);

    cs = await startRawCentralSystem({ port });
    run = await launch(env);
    await until('the StopTransaction', () => cs!.calls('StopTransaction').length === 1);
    const values = cs.calls('MeterValues').flatMap((p) => p.meterValue as { timestamp: string; sampledValue: { measurand?: string; value: string }[] }[]);
    expect(values.length).toBeGreaterThan(0);
    const last = values.at(-1)!;
    const lastWh = Number(last.sampledValue.find((s) => s.measurand === 'Energy.Active.Import.Register')!.value);
    const [start] = cs.calls('StartTransaction');
    const [stop] = cs.calls('StopTransaction');
    expect(stop).toMatchObject({ reason: 'PowerLoss', meterStop: lastWh });
    expect(Date.parse(stop!.timestamp)).toBeGreaterThanOrEqual(Date.parse(last.timestamp));
    expect(lastWh).toBeGreaterThan(start!.meterStart);

    session = await login(run.port, PASSWORD);
    const [listed] = (await httpRequest(run.port, 'GET', '/v1/transactions', { session })).json;
    expect(listed).toMatchObject({ backendTransactionId: '1', consumption: stop!.meterStop - start!.meterStart, endTransaction: stop!.timestamp });
    expect(cs.invalid).toEqual([]);
  } finally {
    run.child.kill('SIGTERM');
    await once(run.child, 'exit').catch(() => undefined);
    await cs?.close();
  }
});
