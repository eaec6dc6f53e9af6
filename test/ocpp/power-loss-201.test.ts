import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCsms, type Csms } from '../../bin/dev/central-system.js';
import { killHard, launch, operatorClient, until } from '../processes.js';
import { ocppSettings, writeSettings } from './support.js';

/**
 * TC_E (offline transactions) against kill -9 under OCPP 2.0.1: the compiled controller in its own process, a strict
 * 2.0.1 CSMS (every frame validated again by typed-ocpp). Transactions run while the CSMS is down, the process is
 * killed in the middle of one; after the restart every TransactionEvent reaches the CSMS once, in order, each
 * transaction's seqNo unbroken from 0, all `offline`, the cut one Ended with stoppedReason PowerLoss.
 */

let root: string;
beforeAll(async () => (root = await mkdtemp(join(tmpdir(), 'cc-ocpp201-power-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

const TAG = '04A1B2C3';
const PASSWORD = 'operator-secret-1';

test('TC_E power loss while offline: after the restart every TransactionEvent is sent once, in order, seqNo unbroken', async () => {
  const dataDir = join(root, 'offline');
  await mkdir(dataDir, { recursive: true });
  const down = await startCsms({ protocols: ['ocpp2.0.1'] });
  const port = down.port;
  await down.close();
  await writeSettings(dataDir, ocppSettings(down, { OcppVersions: 'ocpp2.0.1,ocpp1.6', OcppMeterValueSampleInterval: 1 }));
  const env = { DATA_DIR: dataDir, OPERATOR_PASSWORD: PASSWORD };

  let run = await launch(env);
  let csms: Csms | undefined;
  try {
    const { sim, state } = await operatorClient(run.port, PASSWORD, [TAG]);

    for (const last of [false, true]) {
      await sim('plug');
      await until('waiting for a tag', async () => (await state()).systemState === 'wait_for_auth');
      expect((await state()).ocppState).toBe('occupied');
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

    csms = await startCsms({ port, protocols: ['ocpp2.0.1'] });
    run = await launch(env);
    await until('the replay', () => csms!.calls('TransactionEvent').filter((e) => e.eventType === 'Ended').length === 2);
    await sleep(300); // anything sent twice would follow now
    const sent = csms.calls('TransactionEvent');
    expect(sent.every((e) => e.offline === true)).toBe(true);
    const ids = [...new Set(sent.map((e) => e.transactionInfo.transactionId as string))];
    expect(ids).toHaveLength(2);
    // In order: the first transaction's events, then the second's, each from Started (seqNo 0) to Ended.
    expect(sent.map((e) => e.transactionInfo.transactionId)).toEqual(
      sent.map((_, i) => (i < sent.findIndex((e) => e.eventType === 'Ended') + 1 ? ids[0] : ids[1])),
    );
    for (const id of ids) {
      const mine = sent.filter((e) => e.transactionInfo.transactionId === id);
      expect(mine.map((e) => e.seqNo)).toEqual(mine.map((_, i) => i));
      expect(mine[0]).toMatchObject({ eventType: 'Started', triggerReason: 'Authorized', idToken: { idToken: TAG, type: 'ISO14443' } });
      expect(mine.some((e) => e.triggerReason === 'MeterValuePeriodic')).toBe(true);
    }
    const ended = sent.filter((e) => e.eventType === 'Ended');
    expect(ended.map((e) => e.transactionInfo.stoppedReason)).toEqual(['Local', 'PowerLoss']);
    expect(csms.invalid).toEqual([]);

    // Everything was answered: a kill now and a restart send no TransactionEvent again.
    const before = csms.frames.length;
    await killHard(run);
    run = await launch(env);
    await until('connected again', () => csms!.connections.length === 2);
    await until('the status', () => csms!.frames.slice(before).some((f) => f.message[2] === 'StatusNotification'));
    await sleep(500);
    expect(csms.calls('TransactionEvent')).toHaveLength(sent.length);
    expect(csms.calls('BootNotification').map((b) => b.reason)).toEqual(['PowerUp', 'PowerUp']);
  } finally {
    run.child.kill('SIGTERM');
    await once(run.child, 'exit').catch(() => undefined);
    await csms?.close();
  }
});
