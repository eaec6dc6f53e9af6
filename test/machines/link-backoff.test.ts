import { describe, expect, test } from 'vitest';
import { createActor } from 'xstate';
import { backendLinkMachine } from '../../machines/backend-link.js';
import { mqttMachine } from '../../machines/mqtt.js';
import { ManualClock } from '../clock.js';

/**
 * The reconnect backoff of both links, in seconds as docs/mqtt.md and docs/ocpp.md state them (not computed with the
 * machines' own helper, which the model-based tests use): the wait after each failure in a row, measured on the actor
 * clock as the time from the failure until the next attempt starts.
 */
function waits(opts: { failures: number; fail: () => void; attempting: () => boolean; clock: ManualClock }): number[] {
  const seconds: number[] = [];
  for (let i = 0; i < opts.failures; i++) {
    expect(opts.attempting()).toBe(true);
    opts.fail();
    let waited = 0;
    while (!opts.attempting()) {
      expect(waited, 'the next attempt never started').toBeLessThan(1_000);
      opts.clock.increment(1_000);
      waited++;
    }
    seconds.push(waited);
  }
  return seconds;
}

describe('MQTT link: 1 s after a failure, doubling up to 60 s, from 1 s again after a connection', () => {
  const start = () => {
    const clock = new ManualClock(0);
    const actor = createActor(mqttMachine, { clock }).start();
    actor.send({ type: 'CONFIGURE', connect: true });
    const attempting = () => actor.getSnapshot().matches({ connection: 'connecting' });
    return { clock, actor, attempting };
  };

  test('failed attempts', () => {
    const { clock, actor, attempting } = start();
    expect(waits({ failures: 9, fail: () => actor.send({ type: 'CONNECT_FAILED' }), attempting, clock })).toEqual([1, 2, 4, 8, 16, 32, 60, 60, 60]);
  });

  test('not a second earlier', () => {
    const { clock, actor, attempting } = start();
    actor.send({ type: 'CONNECT_FAILED' });
    actor.send({ type: 'CONNECT_FAILED' }); // ignored while waiting
    clock.increment(999);
    expect(attempting()).toBe(false);
    clock.increment(1);
    expect(attempting()).toBe(true);
    actor.send({ type: 'CONNECT_FAILED' });
    clock.increment(1_999);
    expect(attempting()).toBe(false);
    clock.increment(1);
    expect(attempting()).toBe(true);
  });

  test('a lost connection after a successful one waits 1 s, and counts as a failure', () => {
    const { clock, actor, attempting } = start();
    expect(waits({ failures: 3, fail: () => actor.send({ type: 'CONNECT_FAILED' }), attempting, clock })).toEqual([1, 2, 4]);
    actor.send({ type: 'CONNECTED' });
    actor.send({ type: 'CONNECTION_LOST' });
    clock.increment(999);
    expect(attempting()).toBe(false);
    clock.increment(1);
    expect(waits({ failures: 2, fail: () => actor.send({ type: 'CONNECT_FAILED' }), attempting, clock })).toEqual([2, 4]);
  });
});

describe('OCPP backend link: 5 s after a failure, doubling up to 5 min, from 5 s again after an accepted boot', () => {
  const start = () => {
    const clock = new ManualClock(0);
    const actor = createActor(backendLinkMachine, { clock, input: { heartbeatMs: 300_000 } }).start();
    actor.send({ type: 'START' });
    const attempting = () => actor.getSnapshot().matches('connecting');
    return { clock, actor, attempting };
  };

  test('failed connections', () => {
    const { clock, actor, attempting } = start();
    expect(waits({ failures: 8, fail: () => actor.send({ type: 'SOCKET.FAILED' }), attempting, clock })).toEqual([5, 10, 20, 40, 80, 160, 300, 300]);
  });

  test('closed connections count until a boot is accepted', () => {
    const { clock, actor, attempting } = start();
    const openAndClose = () => {
      actor.send({ type: 'SOCKET.OPENED' });
      actor.send({ type: 'SOCKET.CLOSED' });
    };
    expect(waits({ failures: 3, fail: openAndClose, attempting, clock })).toEqual([5, 10, 20]);
    actor.send({ type: 'SOCKET.OPENED' });
    actor.send({ type: 'BOOT.ACCEPTED', intervalS: 0 });
    expect(actor.getSnapshot().matches({ connected: 'accepted' })).toBe(true);
    actor.send({ type: 'SOCKET.CLOSED' });
    clock.increment(4_999);
    expect(attempting()).toBe(false);
    clock.increment(1);
    expect(attempting()).toBe(true);
  });
});
