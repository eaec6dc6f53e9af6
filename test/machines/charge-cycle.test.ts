import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  chargeCycleMachine,
  POWER_CUT_DELAY_MS,
  stateMeta,
  type ChargeEvent,
  type ChargeInput,
  type PilotLevel,
  type StopReason,
} from '../../machines/charge-cycle.js';
import { ManualClock } from '../clock.js';

/** The machine alone, effects recorded. */
function start(input: ChargeInput = {}) {
  const clock = new ManualClock();
  const effects: string[] = [];
  const machine = chargeCycleMachine.provide({
    actions: {
      startTransaction: (_, p) => effects.push(`start ${p.tagId ?? 'free'}`),
      stopTransaction: (_, p: { reason: StopReason }) => effects.push(`stop ${p.reason}`),
      acceptTag: () => effects.push('accept'),
      refuseTag: () => effects.push('refuse'),
      reportTag: (_, p: { id: string }) => effects.push(`report ${p.id}`),
    },
  });
  const actor = createActor(machine, { clock, input });
  actor.start();
  const send = (e: ChargeEvent) => actor.send(e);
  return {
    clock,
    effects,
    actor,
    send,
    pilot: (level: PilotLevel) => send({ type: 'PILOT', level }),
    tag: (id: string, known = true) => send({ type: 'TAG', id, known, userId: known ? `user-of-${id}` : undefined } as ChargeEvent),
    meta: () => stateMeta(actor.getSnapshot()),
    system: () => stateMeta(actor.getSnapshot()).systemState,
    ocpp: () => stateMeta(actor.getSnapshot()).ocppState,
    has: (tag: string) => actor.getSnapshot().hasTag(tag),
  };
}

describe('charge cycle machine', () => {
  it('plug, tag, charge, EV pause, resume, stop by the same tag, unplug', () => {
    const m = start();
    expect(m.meta()).toEqual({ systemState: 'idle', authState: 'not_authorized_for_charging', ocppState: 'available' });
    m.pilot('b');
    expect(m.meta()).toEqual({ systemState: 'wait_for_auth', authState: 'wait_for_auth', ocppState: 'preparing' });
    m.tag('AABBCCDD');
    expect(m.system()).toBe('connected');
    expect(m.has('pwm') && m.has('locked') && !m.has('contactor')).toBe(true);
    m.pilot('c');
    expect(m.system()).toBe('charging');
    expect(m.has('contactor')).toBe(true);
    m.pilot('b');
    expect([m.system(), m.ocpp(), m.has('contactor'), m.has('pwm')]).toEqual(['charging_pause', 'suspendedev', false, true]);
    m.pilot('c');
    m.tag('AABBCCDD');
    expect([m.system(), m.ocpp(), m.has('contactor'), m.has('pwm'), m.has('locked')]).toEqual(['finished', 'finishing', true, false, false]);
    m.pilot('b');
    expect(m.has('contactor')).toBe(false);
    m.pilot('a');
    expect(m.meta().ocppState).toBe('available');
    expect(m.effects).toEqual(['accept', 'start AABBCCDD', 'stop Local', 'accept']); // exit actions run before the transition's
  });

  it('power is cut 6 s after the stop when the EV stays in C', () => {
    const m = start({ pilot: 'c', settings: { freeCharging: true } });
    expect(m.system()).toBe('charging');
    m.send({ type: 'LOAD_LIMIT', amps: 4 });
    expect([m.ocpp(), m.has('contactor'), m.has('pwm')]).toEqual(['suspendedevse', true, false]);
    m.clock.increment(POWER_CUT_DELAY_MS - 1);
    expect(m.has('contactor')).toBe(true);
    m.clock.increment(1);
    expect([m.ocpp(), m.has('contactor')]).toEqual(['suspendedevse', false]);
    m.send({ type: 'LOAD_LIMIT', amps: null });
    expect(m.system()).toBe('charging');
  });

  it('a recoverable fault suspends the transaction, which resumes when it clears; an unsafe one ends it', () => {
    const m = start({ pilot: 'b', settings: { freeCharging: true } });
    m.pilot('c');
    m.send({ type: 'FAULT', fault: 'overtemperature', active: true });
    expect([m.system(), m.ocpp(), m.has('contactor'), m.has('pwm'), m.has('locked')]).toEqual(['error', 'suspendedevse', false, false, true]);
    m.send({ type: 'FAULT', fault: 'overtemperature', active: false });
    expect(m.system()).toBe('charging');
    m.send({ type: 'FAULT', fault: 'overtemperature', active: true });
    m.send({ type: 'FAULT', fault: 'contactor-welded', active: true });
    expect([m.system(), m.ocpp(), m.has('locked')]).toEqual(['error', 'faulted', false]);
    m.send({ type: 'FAULT', fault: 'contactor-welded', active: false });
    m.send({ type: 'FAULT', fault: 'overtemperature', active: false });
    m.pilot('e');
    expect([m.system(), m.ocpp()]).toEqual(['error', 'faulted']);
    m.pilot('a');
    expect(m.system()).toBe('idle');
    expect(m.effects).toEqual(['start free', 'stop Other', 'start free', 'stop Other']);
  });

  it('a fault clearing after a pilot change resumes by the pilot; disabling ends a suspended transaction (the fault wins)', () => {
    const m = start({ pilot: 'b', settings: { freeCharging: true } });
    m.pilot('c');
    m.send({ type: 'FAULT', fault: 'overtemperature', active: true });
    m.pilot('b');
    m.send({ type: 'FAULT', fault: 'overtemperature', active: false });
    expect([m.system(), m.ocpp(), m.has('pwm')]).toEqual(['connected', 'suspendedev', true]);
    m.send({ type: 'FAULT', fault: 'overtemperature', active: true });
    m.send({ type: 'SETTINGS', settings: { chargingEnabled: false } });
    expect(m.system()).toBe('error');
    m.send({ type: 'FAULT', fault: 'overtemperature', active: false });
    expect(m.system()).toBe('unavailable');
    expect(m.effects).toEqual(['start free', 'stop Other']);
  });

  it('authorization before plug-in expires after auth_timeout', () => {
    const m = start({ settings: { authTimeoutMs: 1000 } });
    m.tag('11223344');
    expect(m.meta()).toEqual({ systemState: 'idle', authState: 'authorized_for_charging', ocppState: 'preparing' });
    m.clock.increment(999);
    expect(m.meta().authState).toBe('authorized_for_charging');
    m.clock.increment(1);
    expect(m.meta().authState).toBe('auth_timeout');
    m.pilot('b');
    expect(m.system()).toBe('wait_for_auth');
  });

  it('A to C directly with a held authorization charges at once; unplug stops with EVDisconnected', () => {
    const m = start();
    m.tag('11223344');
    m.pilot('c');
    expect(m.system()).toBe('charging');
    m.pilot('a');
    expect(m.effects).toEqual(['accept', 'start 11223344', 'stop EVDisconnected']);
  });

  it('disabled by setting: unavailable, tags refused', () => {
    const m = start();
    m.send({ type: 'SETTINGS', settings: { chargingEnabled: false } });
    expect(m.meta()).toEqual({ systemState: 'unavailable', authState: 'not_authorized_for_charging', ocppState: 'unavailable' });
    m.tag('11223344');
    expect(m.effects).toEqual(['refuse']);
    m.send({ type: 'SETTINGS', settings: { chargingEnabled: true } });
    expect(m.system()).toBe('idle');
  });

  it('starting with a CP fault or disabled goes straight to faulted or unavailable', () => {
    expect(start({ pilot: 'e' }).system()).toBe('error');
    expect(start({ pilot: 'b', settings: { chargingEnabled: false } }).system()).toBe('unavailable');
    const m = start({ pilot: 'c', settings: { freeCharging: true } });
    expect([m.system(), m.has('contactor'), m.has('locked')]).toEqual(['charging', true, true]);
  });
});
