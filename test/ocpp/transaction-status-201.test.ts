import { expect, test } from 'vitest';
import { startCsms } from '../../bin/dev/central-system.js';
import { KNOWN } from '../charging/scenario.js';
import { ManualClock } from '../clock.js';
import { TEST_EPOCH } from '../harness.js';
import { until, useOcppChargers } from './support.js';

/**
 * E14 GetTransactionStatus against the development CSMS in strict 2.0.1 (frames validated again by typed-ocpp): a
 * CSMS that holds back its answer to the Ended event keeps that event in the station's queue.
 */

const { charger } = useOcppChargers();

test('TC_E_14-style GetTransactionStatus: ongoing while charging; after the end, messagesInQueue until the Ended event is answered', async () => {
  const clock = new ManualClock(TEST_EPOCH);
  const csms = await startCsms({ now: () => clock.now(), protocols: ['ocpp2.0.1'] });
  let release: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (release = resolve));
  csms.answer('TransactionEvent', async (p) => {
    if (p.eventType === 'Ended') await answered;
    return p.idToken ? { idTokenInfo: { status: 'Accepted' } } : {};
  });
  const c = await charger({ csms, clock, settings: { OcppVersions: 'ocpp2.0.1' } });
  await c.online();
  await c.act('plug');
  await c.tag(KNOWN);
  const started = await until(c, () => csms.calls('TransactionEvent')[0], 'Started');
  const id = started.transactionInfo.transactionId as string;
  await until(c, async () => (await c.h.controller.backend.queued()) === 0, 'Started answered');
  expect(await csms.call('GetTransactionStatus', { transactionId: id })).toEqual({ ongoingIndicator: true, messagesInQueue: false });
  expect(await csms.call('GetTransactionStatus', {})).toEqual({ messagesInQueue: false });

  await c.tag(KNOWN);
  await until(c, () => csms.calls('TransactionEvent').some((e) => e.eventType === 'Ended'), 'Ended sent');
  expect(await csms.call('GetTransactionStatus', { transactionId: id })).toEqual({ ongoingIndicator: false, messagesInQueue: true });
  expect(await csms.call('GetTransactionStatus', {})).toEqual({ messagesInQueue: true });
  expect(await csms.call('GetTransactionStatus', { transactionId: 'not-one-of-ours' })).toEqual({ ongoingIndicator: false, messagesInQueue: false });

  release();
  await until(c, async () => (await c.h.controller.backend.queued()) === 0, 'Ended answered');
  expect(await csms.call('GetTransactionStatus', { transactionId: id })).toEqual({ ongoingIndicator: false, messagesInQueue: false });
});
