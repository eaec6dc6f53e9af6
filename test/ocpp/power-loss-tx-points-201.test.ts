import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCsms, type Csms, type Payload } from '../../bin/dev/central-system.js';
import { httpRequest } from '../harness.js';
import { killHard, launch, login, operatorClient, until } from '../processes.js';
import { ocppSettings, writeSettings } from './support.js';

/**
 * OCA-style E01/E06 with TC_E's power loss: TxStartPoint and TxStopPoint EVConnected under OCPP 2.0.1, the compiled
 * controller killed (-9) between the start point (the cable) and charging, while the strict 2.0.1 CSMS is down. After
 * the restart every TransactionEvent reaches the CSMS once, in order, seqNo unbroken, the cut transaction Ended
 * PowerLoss; the points set by SetVariables are still in force.
 */

let root: string;
beforeAll(async () => (root = await mkdtemp(join(tmpdir(), 'cc-ocpp201-points-'))));
afterAll(() => rm(root, { recursive: true, force: true }));

const TAG = '04A1B2C3';
const PASSWORD = 'operator-secret-1';
const txCtrlr = (name: string) => ({ component: { name: 'TxCtrlr' }, variable: { name } });

test('OCA-style E01 EVConnected + TC_E power loss: cut between the cable and charging, Ended PowerLoss after the restart, order kept', async () => {
  const dataDir = join(root, 'points');
  await mkdir(dataDir, { recursive: true });
  let csms: Csms = await startCsms({ protocols: ['ocpp2.0.1'] });
  const port = csms.port;
  await writeSettings(dataDir, ocppSettings(csms, { OcppVersions: 'ocpp2.0.1,ocpp1.6', OcppMeterValueSampleInterval: 0 }));
  const env = { DATA_DIR: dataDir, OPERATOR_PASSWORD: PASSWORD };

  let run = await launch(env);
  try {
    await until('the boot', () => csms.calls('StatusNotification').length > 0);
    const set = await csms.call('SetVariables', {
      setVariableData: [
        { ...txCtrlr('TxStartPoint'), attributeValue: 'EVConnected' },
        { ...txCtrlr('TxStopPoint'), attributeValue: 'EVConnected' },
      ],
    });
    expect(set.setVariableResult.map((r: Payload) => r.attributeStatus)).toEqual(['Accepted', 'Accepted']);
    await csms.close();

    const { sim, state } = await operatorClient(run.port, PASSWORD, [TAG]);

    // A whole transaction offline: charging stopped by the tag, ended by the unplug.
    await sim('plug');
    await until('waiting for a tag', async () => (await state()).systemState === 'wait_for_auth');
    await sim('tag', { id: TAG });
    await sim('charge');
    await until('charging', async () => (await state()).transaction?.consumption >= 2);
    await sim('tag', { id: TAG });
    await until('stopped', async () => (await state()).transaction === undefined);
    await sim('unplug');
    await until('idle', async () => (await state()).systemState === 'idle');
    // The second: the cable only (its Started queued), then the power goes.
    await sim('plug');
    await until('waiting for a tag', async () => (await state()).systemState === 'wait_for_auth');
    await sleep(500);
    await killHard(run);

    csms = await startCsms({ port, protocols: ['ocpp2.0.1'] });
    run = await launch(env);
    await until('the replay', () => csms.calls('TransactionEvent').filter((e) => e.eventType === 'Ended').length === 2);
    await sleep(300); // anything sent twice would follow now
    const sent = csms.calls('TransactionEvent');
    expect(sent.every((e) => e.offline === true)).toBe(true);
    const ids = [...new Set(sent.map((e) => e.transactionInfo.transactionId as string))];
    expect(ids).toHaveLength(2);
    const [first, second] = ids.map((id) => sent.filter((e) => e.transactionInfo.transactionId === id));
    // In order: the first transaction's events, then the second's.
    expect(sent).toEqual([...first!, ...second!]);
    for (const mine of [first!, second!]) expect(mine.map((e) => e.seqNo)).toEqual(mine.map((_, i) => i));
    expect(first!.map((e) => `${e.eventType}:${e.triggerReason}`)).toEqual(
      expect.arrayContaining(['Started:CablePluggedIn', 'Updated:Authorized', 'Updated:StopAuthorized', 'Ended:EVCommunicationLost']),
    );
    expect(first![0]!.eventType).toBe('Started');
    expect(first!.at(-1)).toMatchObject({ eventType: 'Ended', transactionInfo: { stoppedReason: 'Local' } });
    expect(second!.map((e) => `${e.eventType}:${e.triggerReason}:${e.transactionInfo.stoppedReason ?? ''}`)).toEqual([
      'Started:CablePluggedIn:',
      'Ended:AbnormalCondition:PowerLoss',
    ]);
    expect(csms.invalid).toEqual([]);

    // The points were kept (ocpp_state), and the charge cycle's one transaction is the first one's energy.
    const read = await csms.call('GetVariables', { getVariableData: [txCtrlr('TxStartPoint'), txCtrlr('TxStopPoint')] });
    expect(read.getVariableResult.map((r: Payload) => r.attributeValue)).toEqual(['EVConnected', 'EVConnected']);
    const wh = (e: Payload, context: string) => Number(e.meterValue[0].sampledValue.find((s: Payload) => s.context === context).value);
    const session2 = await login(run.port, PASSWORD);
    const completed = (await httpRequest(run.port, 'GET', '/v1/transactions', { session: session2 })).json;
    const list = Array.isArray(completed) ? completed : completed.transactions;
    expect(list).toHaveLength(1);
    expect(wh(first!.at(-1)!, 'Transaction.End') - wh(first![0]!, 'Transaction.Begin')).toBe(list[0].consumption);
  } finally {
    run.child.kill('SIGTERM');
    await once(run.child, 'exit').catch(() => undefined);
    await csms.close();
  }
});
