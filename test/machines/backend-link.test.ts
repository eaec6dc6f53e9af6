import { describe, expect, test } from 'vitest';
import { createActor } from 'xstate';
import { backendLinkMachine, type BackendLinkEvent } from '../../machines/backend-link.js';
import { ManualClock } from '../clock.js';

/**
 * The backend link's rules the OCPP scenario tests reach only in part (docs/ocpp.md): what STOP ends, a heartbeat
 * interval set before the boot is accepted, a BootNotification without a valid answer, TriggerMessage while pending,
 * and a new heartbeat interval while online. Effects are counted through `provide`, time is the actor clock.
 */
function start(heartbeatMs = 300_000) {
  const clock = new ManualClock(0);
  const effects: string[] = [];
  const effect = (name: string) => () => void effects.push(name);
  const machine = backendLinkMachine.provide({
    actions: {
      openSocket: effect('open'),
      closeSocket: effect('close'),
      sendBootNotification: effect('boot'),
      sendHeartbeat: effect('heartbeat'),
      online: effect('online'),
      offline: effect('offline'),
    },
  });
  const actor = createActor(machine, { clock, input: { heartbeatMs } }).start();
  const send = (...events: BackendLinkEvent[]) => events.forEach((e) => actor.send(e));
  /** The effects since the last call. */
  const taken = () => effects.splice(0);
  return { clock, actor, send, taken, value: () => actor.getSnapshot().value };
}

describe('STOP', () => {
  const states: Array<[string, BackendLinkEvent[], unknown]> = [
    ['connecting', [], 'connecting'],
    ['backoff', [{ type: 'SOCKET.FAILED' }], 'backoff'],
    ['booting', [{ type: 'SOCKET.OPENED' }], { connected: 'booting' }],
    ['pending', [{ type: 'SOCKET.OPENED' }, { type: 'BOOT.PENDING', intervalS: 30 }], { connected: 'pending' }],
    ['accepted', [{ type: 'SOCKET.OPENED' }, { type: 'BOOT.ACCEPTED', intervalS: 60 }], { connected: { accepted: 'beating' } }],
  ];
  test.each(states)('from %s: the socket closed, disconnected, nothing more until START', (_name, events, value) => {
    const l = start();
    l.send({ type: 'START' }, ...events);
    expect(l.value()).toEqual(value);
    l.taken();
    l.send({ type: 'STOP' });
    expect(l.value()).toBe('disconnected');
    expect(l.taken().filter((e) => e !== 'offline')).toEqual(['close']);
    l.clock.increment(3_600_000);
    expect(l.taken()).toEqual([]);
    l.send({ type: 'START' });
    expect(l.taken()).toEqual(['open']);
  });
});

test('a heartbeat interval set before the boot is accepted applies when the central system gives none', () => {
  const l = start(300_000);
  l.send({ type: 'HEARTBEAT.INTERVAL', seconds: 90 }, { type: 'START' }, { type: 'SOCKET.OPENED' }, { type: 'BOOT.ACCEPTED', intervalS: 0 });
  l.taken();
  l.clock.increment(89_999);
  expect(l.taken()).toEqual([]);
  l.clock.increment(1);
  expect(l.taken()).toEqual(['heartbeat']);
});

test('a BootNotification without a valid answer is sent again after 60 s', () => {
  const l = start();
  l.send({ type: 'START' }, { type: 'SOCKET.OPENED' });
  expect(l.taken()).toEqual(['open', 'boot']);
  l.send({ type: 'BOOT.FAILED' });
  expect(l.value()).toEqual({ connected: 'rejected' });
  l.clock.increment(59_999);
  expect(l.taken()).toEqual([]);
  l.clock.increment(1);
  expect(l.taken()).toEqual(['boot']);
  expect(l.value()).toEqual({ connected: 'booting' });
});

test('TriggerMessage(BootNotification) while pending sends it at once; not while rejected', () => {
  const l = start();
  l.send({ type: 'START' }, { type: 'SOCKET.OPENED' }, { type: 'BOOT.PENDING', intervalS: 300 });
  l.taken();
  l.send({ type: 'BOOT.TRIGGERED' });
  expect(l.taken()).toEqual(['boot']);
  expect(l.value()).toEqual({ connected: 'booting' });
  l.send({ type: 'BOOT.REJECTED', intervalS: 300 });
  l.send({ type: 'BOOT.TRIGGERED' });
  expect(l.taken()).toEqual([]);
  expect(l.value()).toEqual({ connected: 'rejected' });
});

test('a new heartbeat interval while online: the next heartbeat that long from now; the link stays online', () => {
  const l = start();
  l.send({ type: 'START' }, { type: 'SOCKET.OPENED' }, { type: 'BOOT.ACCEPTED', intervalS: 120 });
  expect(l.taken()).toEqual(['open', 'boot', 'online']);
  l.clock.increment(100_000);
  l.send({ type: 'HEARTBEAT.INTERVAL', seconds: 45 });
  // Not offline and online again (that would send every status again).
  expect(l.taken()).toEqual([]);
  l.clock.increment(44_999);
  expect(l.taken()).toEqual([]);
  l.clock.increment(1);
  expect(l.taken()).toEqual(['heartbeat']);
  l.clock.increment(45_000);
  expect(l.taken()).toEqual(['heartbeat']);
});
