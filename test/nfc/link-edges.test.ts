import { describe, expect, test } from 'vitest';
import { ANSWER_DEADLINE_MS, NFC_IDLE_MS } from '../../machines/nfc-link.js';
import { apdu, startLink } from './link-actor.js';

/**
 * NFC link rules the other link tests do not single out (found by mutation testing, docs/mutation-testing.md): the
 * exchange's `writing` state, a late answer that frees the exchange once read, a re-activation's phone state, and
 * the idle minute a phone's activation restarts.
 */

const SELECT = ['00A4040007D2760000850101 00', '00A4000C02E104'];
const WRITE = ['00D60000020000', '00D6000203D10100', '00D60000020003'];

/** The link established by a phone. */
function start() {
  const link = startLink();
  link.actor.send({ type: 'PHONE.ACTIVATED' });
  return { ...link, at: () => link.actor.getSnapshot().value };
}

describe('NFC link: exchange and activation edges', () => {
  test('NLEN 0 starts writing, the body keeps it, the committing NLEN makes it pending', () => {
    const { send, at } = start();
    send(...SELECT);
    expect(at()).toMatchObject({ established: { exchange: 'idle' } });
    send(WRITE[0]!);
    expect(at()).toMatchObject({ established: { exchange: 'writing' } });
    send(WRITE[1]!);
    expect(at()).toMatchObject({ established: { exchange: 'writing' } });
    send(WRITE[2]!);
    expect(at()).toMatchObject({ established: { exchange: { pending: 'held' } } });
  });

  test('a late answer, once read, frees the exchange: the next request is submitted, not refused', () => {
    const { actor, clock, log, send, at } = start();
    send(...SELECT, ...WRITE);
    clock.increment(ANSWER_DEADLINE_MS);
    expect(at()).toMatchObject({ established: { exchange: { pending: 'late' } } });
    actor.send({ type: 'ANSWER', message: apdu('D10101AA') });
    expect(at()).toMatchObject({ established: { exchange: 'answering' } });
    send('00B0000006');
    expect(at()).toMatchObject({ established: { exchange: 'idle' } });
    send(...WRITE);
    expect(log.filter((l) => /^(submit|refuse)/.test(l))).toEqual(['submit d10100', 'submit d10100']);
  });

  test('a phone activating again starts with nothing selected, from selected and after a release', () => {
    const { actor, send, at } = start();
    send(SELECT[0]!);
    expect(at()).toMatchObject({ established: { phone: 'selected' } });
    actor.send({ type: 'PHONE.ACTIVATED' });
    expect(at()).toMatchObject({ established: { phone: 'activated' } });
    send(SELECT[0]!);
    actor.send({ type: 'PHONE.RELEASED' });
    expect(at()).toMatchObject({ established: { phone: 'listening' } });
    actor.send({ type: 'PHONE.ACTIVATED' });
    expect(at()).toMatchObject({ established: { phone: 'activated' } });
  });

  test("a phone's activation alone (no APDU yet) restarts the idle minute", () => {
    const { actor, clock, at } = start();
    clock.increment(NFC_IDLE_MS - 1_000);
    actor.send({ type: 'PHONE.RELEASED' });
    actor.send({ type: 'PHONE.ACTIVATED' });
    clock.increment(NFC_IDLE_MS - 1);
    expect(at()).toMatchObject({ established: { phone: 'activated' } });
    clock.increment(1);
    expect(at()).toBe('checking');
  });
});
