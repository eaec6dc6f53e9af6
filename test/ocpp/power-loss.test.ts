import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCsms, type Csms } from '../../bin/dev/central-system.js';
import { httpRequest } from '../harness.js';
import { killHard, launch, login, operatorClient, until } from '../processes.js';
import { ocppSettings, writeSettings } from './support.js';

/**
 * The offline queue against kill -9: the compiled controller in its own process (the core in its worker, the real
 * clock), a strict central system on 127.0.0.1. Transactions run while the central system is down, the process is
 * killed in the middle of one, and after the restart every message reaches the central system once, in order,
 * with the central system's ids; a kill after the replay sends nothing again.
 */

let root: string;
beforeAll(async () => (root = await mkdtemp(join(tmpdir(), 'cc-ocpp-power-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

const TAG = '04A1B2C3';
const PASSWORD = 'operator-secret-1';

test('power loss while offline: after the restart every queued message is sent once, in order, with the right ids', async () => {
  const dataDir = join(root, 'offline');
  await mkdir(dataDir, { recursive: true });
  // A central system that is down: its port, closed.
  const down = await startCsms();
  const port = down.port;
  await down.close();
  await writeSettings(dataDir, ocppSettings(down, { OcppMeterValueSampleInterval: 1, OcppWebSocketPingInterval: 0 }));
  const env = { DATA_DIR: dataDir, OPERATOR_PASSWORD: PASSWORD };

  let run = await launch(env);
  let csms: Csms | undefined;
  try {
    const { sim, state } = await operatorClient(run.port, PASSWORD, [TAG]);

    // A whole charge offline, then a second one cut by the kill.
    for (const last of [false, true]) {
      await sim('plug');
      await until('waiting for a tag', async () => (await state()).systemState === 'wait_for_auth');
      await sim('tag', { id: TAG });
      await sim('charge');
      await until('charging', async () => (await state()).transaction?.consumption >= 2);
      await sleep(1_200); // a sampled meter value or two
      if (last) break;
      await sim('tag', { id: TAG });
      await until('stopped', async () => (await state()).transaction === undefined);
      await sim('unplug');
      await until('idle', async () => (await state()).systemState === 'idle');
    }
    await killHard(run);

    csms = await startCsms({ port });
    run = await launch(env);
    await until('the replay', () => csms!.calls('StopTransaction').length === 2);
    await sleep(300); // anything sent twice would follow now
    const sent = csms.frames.filter((f) => f.direction === 'in' && f.message[0] === 2).map((f) => f.message[2] as string);
    const transactional = sent.filter((a) => ['StartTransaction', 'StopTransaction', 'MeterValues'].includes(a));
    // In order: the first transaction's start, its meter values, its stop; then the second's.
    const firstStop = transactional.indexOf('StopTransaction');
    expect(transactional[0]).toBe('StartTransaction');
    expect(transactional.slice(1, firstStop).every((a) => a === 'MeterValues')).toBe(true);
    expect(transactional[firstStop + 1]).toBe('StartTransaction');
    expect(transactional.slice(firstStop + 2, -1).every((a) => a === 'MeterValues')).toBe(true);
    expect(transactional.at(-1)).toBe('StopTransaction');
    expect(csms.calls('StartTransaction')).toHaveLength(2);
    expect(csms.calls('StopTransaction').map((p) => [p.transactionId, p.reason])).toEqual([
      [1, 'Local'],
      [2, 'PowerLoss'],
    ]);
    const meterIds = new Set(csms.calls('MeterValues').map((p) => p.transactionId));
    expect(meterIds).toEqual(new Set([1, 2]));
    // The second stop carries the last checkpointed register.
    const [s1, s2] = csms.calls('StartTransaction');
    expect(csms.calls('StopTransaction')[1]!.meterStop).toBeGreaterThanOrEqual(s2!.meterStart); // the last checkpoint's register
    expect(s2!.meterStart).toBeGreaterThanOrEqual(csms.calls('StopTransaction')[0]!.meterStop);
    expect(s1!.idTag).toBe(TAG);
    expect(csms.invalid).toEqual([]);

    // Everything was answered: a kill now and a restart send no transaction message again.
    const before = csms.frames.length;
    const counted = transactional.length;
    await killHard(run);
    run = await launch(env);
    await until('connected again', () => csms!.connections.length === 2);
    await until('the status', () => csms!.frames.slice(before).some((f) => f.message[2] === 'StatusNotification'));
    await sleep(500);
    const again = csms.frames.filter(
      (f) => f.direction === 'in' && f.message[0] === 2 && ['StartTransaction', 'StopTransaction', 'MeterValues'].includes(f.message[2] as string),
    );
    expect(again).toHaveLength(counted);
    const s2session = await login(run.port, PASSWORD);
    const list = (await httpRequest(run.port, 'GET', '/v1/transactions', { session: s2session })).json;
    expect(list.map((t: any) => t.backendTransactionId)).toEqual(['1', '2']);
  } finally {
    run.child.kill('SIGTERM');
    await once(run.child, 'exit').catch(() => undefined);
    await csms?.close();
  }
});
