import { describe, expect, test } from 'vitest';
import { createActor } from 'xstate';
import { MAX_COUNTED_FAILURES, mqttMachine, type MqttEvent } from '../../machines/mqtt.js';
import { ManualClock } from '../clock.js';

/**
 * The MQTT link's rules (docs/mqtt.md) on the machine alone, each effect counted through `provide` and time on the
 * actor clock: the effects of each connection change, Home Assistant discovery, the meter values' pace and the load
 * limit with its fallback. The scenario and model-based tests run the same rules against a broker; these name each
 * effect and each boundary.
 */
function start() {
  const clock = new ManualClock(0);
  const effects: string[] = [];
  const names = ['open', 'close', 'drop', 'goOnline', 'announce', 'withdraw', 'publishMeter', 'applyLimit', 'applyFallback', 'clearLimit'] as const;
  const actions = Object.fromEntries(names.map((n) => [n, () => void effects.push(n)]));
  const actor = createActor(mqttMachine.provide({ actions }), { clock }).start();
  const send = (...events: MqttEvent[]) => events.forEach((e) => actor.send(e));
  /** The effects since the last call. */
  const taken = () => effects.splice(0);
  const snapshot = () => actor.getSnapshot();
  const region = (name: 'connection' | 'meter' | 'loadLimit') => (snapshot().value as Record<string, string>)[name];
  return { clock, send, taken, snapshot, region };
}

describe('connection', () => {
  test('off at start: closed, nothing opened', () => {
    const l = start();
    expect(l.region('connection')).toBe('disabled');
    expect(l.taken()).toEqual(['close']);
    l.send({ type: 'CONFIGURE', connect: false }, { type: 'CONNECTED' }, { type: 'CONNECT_FAILED' });
    expect(l.region('connection')).toBe('disabled');
    expect(l.taken()).toEqual([]);
  });

  test('a connection: opened, online, discovery withdrawn (off) or announced (on)', () => {
    const l = start();
    l.taken();
    l.send({ type: 'CONFIGURE', connect: true });
    expect(l.region('connection')).toBe('connecting');
    expect(l.taken()).toEqual(['open']);
    l.send({ type: 'CONNECTED' });
    expect(l.region('connection')).toBe('connected');
    expect(l.taken()).toEqual(['goOnline', 'withdraw']);
    l.send({ type: 'DISCOVERY', on: true });
    expect(l.taken()).toEqual(['announce']);
    l.send({ type: 'CONNECTION_LOST' });
    expect(l.region('connection')).toBe('waiting');
    expect(l.taken()).toEqual(['drop']);
    l.clock.increment(1_000);
    l.send({ type: 'CONNECTED' });
    expect(l.taken()).toEqual(['open', 'goOnline', 'announce']);
  });

  test('discovery set while not connected is remembered for the connection', () => {
    const l = start();
    l.send({ type: 'DISCOVERY', on: true });
    expect(l.snapshot().context.discovery).toBe(true);
    l.send({ type: 'CONFIGURE', connect: true });
    l.taken();
    l.send({ type: 'DISCOVERY', on: false }, { type: 'DISCOVERY', on: true });
    expect(l.taken()).toEqual([]);
    l.send({ type: 'CONNECTED' });
    expect(l.taken()).toEqual(['goOnline', 'announce']);
    l.send({ type: 'DISCOVERY', on: false });
    expect(l.snapshot().context.discovery).toBe(false);
    expect(l.taken()).toEqual(['withdraw']);
  });

  test('Home Assistant online: announced again only when discovery is on', () => {
    const l = start();
    l.send({ type: 'CONFIGURE', connect: true }, { type: 'CONNECTED' });
    l.taken();
    l.send({ type: 'HA_ONLINE' });
    expect(l.taken()).toEqual([]);
    l.send({ type: 'DISCOVERY', on: true });
    l.taken();
    l.send({ type: 'HA_ONLINE' });
    expect(l.taken()).toEqual(['announce']);
  });

  test('new connection settings: a new attempt at once from every state, the backoff from 1 s again', () => {
    const l = start();
    l.send({ type: 'CONFIGURE', connect: true }, { type: 'CONNECT_FAILED' });
    l.clock.increment(1_000);
    l.send({ type: 'CONNECT_FAILED' });
    expect(l.snapshot().context.failures).toBe(2);
    l.taken();
    // waiting
    l.send({ type: 'CONFIGURE', connect: true });
    expect(l.region('connection')).toBe('connecting');
    expect(l.snapshot().context.failures).toBe(0);
    expect(l.taken()).toEqual(['open']);
    // connecting: the attempt starts again
    l.send({ type: 'CONNECT_FAILED' });
    expect(l.snapshot().context.failures).toBe(1);
    l.clock.increment(1_000);
    l.taken();
    l.send({ type: 'CONFIGURE', connect: true });
    expect(l.snapshot().context.failures).toBe(0);
    expect(l.taken()).toEqual(['open']);
    // connected
    l.send({ type: 'CONNECTED' });
    l.taken();
    l.send({ type: 'CONFIGURE', connect: true });
    expect(l.region('connection')).toBe('connecting');
    expect(l.taken()).toEqual(['open']);
  });

  test('MQTT turned off: from connected discovery withdrawn first, then closed; from the others closed', () => {
    const connected = start();
    connected.send({ type: 'CONFIGURE', connect: true }, { type: 'CONNECTED' });
    connected.taken();
    connected.send({ type: 'CONFIGURE', connect: false });
    expect(connected.region('connection')).toBe('disabled');
    expect(connected.taken()).toEqual(['withdraw', 'close']);

    const connecting = start();
    connecting.send({ type: 'CONFIGURE', connect: true });
    connecting.taken();
    connecting.send({ type: 'CONFIGURE', connect: false });
    expect(connecting.region('connection')).toBe('disabled');
    expect(connecting.taken()).toEqual(['close']);

    const waiting = start();
    waiting.send({ type: 'CONFIGURE', connect: true }, { type: 'CONNECT_FAILED' });
    waiting.taken();
    waiting.send({ type: 'CONFIGURE', connect: false });
    expect(waiting.region('connection')).toBe('disabled');
    expect(waiting.taken()).toEqual(['close']);
    waiting.clock.increment(120_000);
    expect(waiting.taken()).toEqual([]);
  });

  test(`failures counted up to ${MAX_COUNTED_FAILURES}, reset by a connection`, () => {
    const l = start();
    l.send({ type: 'CONFIGURE', connect: true });
    for (let i = 1; i <= MAX_COUNTED_FAILURES + 3; i++) {
      l.send({ type: 'CONNECT_FAILED' });
      expect(l.snapshot().context.failures).toBe(Math.min(i, MAX_COUNTED_FAILURES));
      l.clock.increment(60_000);
    }
    expect(MAX_COUNTED_FAILURES).toBe(7);
    l.send({ type: 'CONNECTED' });
    expect(l.snapshot().context.failures).toBe(0);
  });
});

describe('meter values', () => {
  test('the first at once, then at most once per interval, only when something changed', () => {
    const l = start();
    l.taken();
    l.send({ type: 'METER' });
    expect(l.taken()).toEqual(['publishMeter']);
    expect(l.region('meter')).toBe('holding');
    l.send({ type: 'METER' }, { type: 'METER' });
    expect(l.taken()).toEqual([]);
    l.clock.increment(9_999);
    expect(l.taken()).toEqual([]);
    l.clock.increment(1);
    expect(l.taken()).toEqual(['publishMeter']);
    expect(l.snapshot().context.meterPending).toBe(false);
    // Nothing changed in the next interval: ready again, the next change published at once.
    l.clock.increment(10_000);
    expect(l.taken()).toEqual([]);
    expect(l.region('meter')).toBe('ready');
    l.send({ type: 'METER' });
    expect(l.taken()).toEqual(['publishMeter']);
  });

  test('one change: published at once, nothing at the end of the interval', () => {
    const l = start();
    expect(l.snapshot().context.meterPending).toBe(false);
    l.send({ type: 'METER' });
    expect(l.taken()).toEqual(['close', 'publishMeter']);
    l.clock.increment(10_000);
    expect(l.taken()).toEqual([]);
    expect(l.region('meter')).toBe('ready');
  });

  test('a new interval takes effect at once, running from now; set while ready, for the next', () => {
    const l = start();
    l.send({ type: 'INTERVAL', ms: 3_000 });
    expect(l.snapshot().context.intervalMs).toBe(3_000);
    l.send({ type: 'METER' }, { type: 'METER' });
    l.taken();
    l.clock.increment(2_000);
    l.send({ type: 'INTERVAL', ms: 5_000 });
    l.clock.increment(4_999);
    expect(l.taken()).toEqual([]);
    l.clock.increment(1);
    expect(l.taken()).toEqual(['publishMeter']);
  });
});

describe('load limit', () => {
  const on = (fallbackA = 7, timeoutMs = 5_000): MqttEvent => ({ type: 'LOAD_MANAGEMENT', on: true, timeoutMs, fallbackA });
  const off: MqttEvent = { type: 'LOAD_MANAGEMENT', on: false, timeoutMs: 5_000, fallbackA: 7 };

  test('off: no limit from here, a limit ignored', () => {
    const l = start();
    l.taken();
    l.send({ type: 'LIMIT', amps: 10 }, off);
    expect(l.region('loadLimit')).toBe('off');
    expect(l.snapshot().context.limitA).toBeNull();
    expect(l.taken()).toEqual([]);
  });

  test('on: the fallback until the first limit, the limit while fresh, the fallback when stale, nothing when off', () => {
    const l = start();
    l.taken();
    l.send(on(7, 5_000));
    expect(l.region('loadLimit')).toBe('fallback');
    expect(l.snapshot().context.loadLimit).toEqual({ timeoutMs: 5_000, fallbackA: 7 });
    expect(l.taken()).toEqual(['applyFallback']);
    l.send({ type: 'LIMIT', amps: 10 });
    expect(l.region('loadLimit')).toBe('fresh');
    expect(l.snapshot().context.limitA).toBe(10);
    expect(l.taken()).toEqual(['applyLimit']);
    l.clock.increment(4_000);
    l.send({ type: 'LIMIT', amps: 12 });
    expect(l.snapshot().context.limitA).toBe(12);
    expect(l.taken()).toEqual(['applyLimit']);
    // Refreshed: stale 5 s after the last limit.
    l.clock.increment(4_999);
    expect(l.region('loadLimit')).toBe('fresh');
    l.clock.increment(1);
    expect(l.region('loadLimit')).toBe('fallback');
    expect(l.taken()).toEqual(['applyFallback']);
    l.send(off);
    expect(l.region('loadLimit')).toBe('off');
    expect(l.snapshot().context.limitA).toBeNull();
    expect(l.taken()).toEqual(['clearLimit']);
  });

  test('new settings: a new fallback applies at once; while fresh the limit stays, the new refresh time from the next limit', () => {
    const l = start();
    l.send(on(7, 5_000));
    l.taken();
    l.send(on(8, 5_000));
    expect(l.snapshot().context.loadLimit.fallbackA).toBe(8);
    expect(l.taken()).toEqual(['applyFallback']);
    l.send({ type: 'LIMIT', amps: 10 });
    l.taken();
    l.send(on(9, 20_000));
    expect(l.region('loadLimit')).toBe('fresh');
    expect(l.snapshot().context.loadLimit).toEqual({ timeoutMs: 20_000, fallbackA: 9 });
    expect(l.taken()).toEqual([]);
    l.clock.increment(5_000);
    expect(l.region('loadLimit')).toBe('fallback');
    l.send({ type: 'LIMIT', amps: 10 });
    l.clock.increment(19_999);
    expect(l.region('loadLimit')).toBe('fresh');
    l.clock.increment(1);
    expect(l.region('loadLimit')).toBe('fallback');
    l.send({ type: 'LIMIT', amps: 11 }, off);
    expect(l.region('loadLimit')).toBe('off');
    expect(l.snapshot().context.limitA).toBeNull();
  });
});
