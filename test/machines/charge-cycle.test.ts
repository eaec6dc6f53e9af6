import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  chargeCycleMachine,
  POWER_CUT_DELAY_MS,
  stateMeta,
  type Authorization,
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
  const authorizations: Authorization[] = [];
  const machine = chargeCycleMachine.provide({
    actions: {
      startTransaction: (_, p) => {
        authorizations.push(p);
        effects.push(`start ${p.tagId ?? 'free'}`);
      },
      stopTransaction: (_, p: { reason: StopReason }) => effects.push(`stop ${p.reason}`),
      acceptTag: (_, p: { outcome: string }) => effects.push(`accept ${p.outcome}`),
      refuseTag: (_, p: { reason: string }) => effects.push(`refuse ${p.reason}`),
      reportTag: (_, p: { id: string }) => effects.push(`report ${p.id}`),
    },
  });
  const actor = createActor(machine, { clock, input });
  actor.start();
  const send = (e: ChargeEvent) => actor.send(e);
  return {
    clock,
    effects,
    authorizations,
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
    expect(m.effects).toEqual(['accept authorized', 'start AABBCCDD', 'stop Local', 'accept stopped']); // exit actions run before the transition's
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
    expect(m.effects).toEqual(['accept authorized', 'start 11223344', 'stop EVDisconnected']);
  });

  it('disabled by setting: unavailable, tags refused', () => {
    const m = start();
    m.send({ type: 'SETTINGS', settings: { chargingEnabled: false } });
    expect(m.meta()).toEqual({ systemState: 'unavailable', authState: 'not_authorized_for_charging', ocppState: 'unavailable' });
    m.tag('11223344');
    expect(m.effects).toEqual(['refuse unavailable']);
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

describe('charge cycle machine: boundaries, tags in every state, faults one by one', () => {
  it('exactly 6 A (IEC 61851-1 minimum) charges; below it the EVSE pauses, from ready and under load', () => {
    const m = start({ pilot: 'b', settings: { freeCharging: true } });
    m.send({ type: 'LOAD_LIMIT', amps: 6 });
    expect([m.system(), m.has('pwm')]).toEqual(['connected', true]);
    m.send({ type: 'LOAD_LIMIT', amps: 5.9 });
    expect([m.system(), m.ocpp(), m.has('pwm')]).toEqual(['charging_pause', 'suspendedevse', false]);
    m.send({ type: 'LOAD_LIMIT', amps: 6 });
    expect([m.system(), m.ocpp(), m.has('pwm')]).toEqual(['connected', 'suspendedev', true]);
    m.pilot('c');
    expect([m.system(), m.has('contactor'), m.has('pwm')]).toEqual(['charging', true, true]);
    m.send({ type: 'LOAD_LIMIT', amps: 5.9 });
    expect([m.system(), m.ocpp(), m.has('contactor'), m.has('pwm')]).toEqual(['charging_pause', 'suspendedevse', true, false]);
    m.send({ type: 'LOAD_LIMIT', amps: 6 });
    expect([m.system(), m.has('contactor'), m.has('pwm')]).toEqual(['charging', true, true]);
    // The maximum current setting is the same boundary, and load management only lowers it.
    m.send({ type: 'LOAD_LIMIT', amps: null });
    m.send({ type: 'SETTINGS', settings: { maxCurrentA: 6 } });
    expect(m.system()).toBe('charging');
    m.send({ type: 'LOAD_LIMIT', amps: 32 });
    expect(m.system()).toBe('charging');
    m.send({ type: 'SETTINGS', settings: { maxCurrentA: 5 } });
    expect([m.system(), m.has('pwm')]).toEqual(['charging_pause', false]);
    // The EV leaves C while the EVSE pauses: contactor open, still paused by the EVSE (not by the EV).
    m.pilot('b');
    expect([m.system(), m.ocpp(), m.has('contactor'), m.has('pwm')]).toEqual(['charging_pause', 'suspendedevse', false, false]);
    m.send({ type: 'SETTINGS', settings: { maxCurrentA: 6 } });
    expect([m.system(), m.ocpp(), m.has('pwm')]).toEqual(['connected', 'suspendedev', true]);
  });

  it('an EV that paused (C to B) while the current drops below 6 A is paused by the EVSE; it resumes at 6 A', () => {
    const m = start({ pilot: 'c', settings: { freeCharging: true } });
    m.pilot('b');
    expect([m.ocpp(), m.has('pwm'), m.has('contactor')]).toEqual(['suspendedev', true, false]);
    m.send({ type: 'LOAD_LIMIT', amps: 5 });
    expect([m.ocpp(), m.has('pwm')]).toEqual(['suspendedevse', false]);
    m.pilot('c');
    expect([m.ocpp(), m.has('contactor')]).toEqual(['suspendedevse', false]);
    m.send({ type: 'LOAD_LIMIT', amps: 6 });
    expect([m.system(), m.has('contactor')]).toEqual(['charging', true]);
  });

  it('tags while pausing under load: another known one is reported, an unknown one refused, the session tag stops through stopping', () => {
    const m = start({ pilot: 'b' });
    m.tag('AA');
    m.pilot('c');
    m.send({ type: 'LOAD_LIMIT', amps: 0 });
    expect([m.ocpp(), m.has('contactor'), m.has('pwm')]).toEqual(['suspendedevse', true, false]);
    m.tag('BB');
    m.tag('CC', false);
    expect([m.ocpp(), m.has('contactor')]).toEqual(['suspendedevse', true]);
    m.tag('AA');
    expect([m.system(), m.ocpp(), m.has('contactor'), m.has('pwm'), m.has('locked')]).toEqual(['finished', 'finishing', true, false, false]);
    m.tag('AA');
    m.clock.increment(POWER_CUT_DELAY_MS - 1);
    expect(m.has('contactor')).toBe(true);
    m.clock.increment(1);
    expect([m.system(), m.has('contactor')]).toEqual(['finished', false]);
    expect(m.effects).toEqual(['accept authorized', 'start AA', 'report BB', 'refuse unknown', 'stop Local', 'accept stopped', 'refuse stopping']);
    // A new tag starts a new transaction with the vehicle still connected (it goes on in C at 0 A: paused by the EVSE).
    m.tag('BB');
    expect([m.ocpp(), m.has('locked'), m.has('contactor')]).toEqual(['suspendedevse', true, false]);
    expect(m.authorizations).toEqual([
      { tagId: 'AA', userId: 'user-of-AA' },
      { tagId: 'BB', userId: 'user-of-BB' },
    ]);
  });

  it('a commanded stop while pausing or charging goes through stopping with its reason; before load it finishes at once', () => {
    const m = start({ pilot: 'c', settings: { freeCharging: false } });
    m.tag('AA');
    m.send({ type: 'LOAD_LIMIT', amps: 0 });
    m.send({ type: 'STOP', reason: 'Remote' });
    expect([m.ocpp(), m.has('contactor'), m.has('pwm')]).toEqual(['finishing', true, false]);
    m.pilot('b');
    expect([m.ocpp(), m.has('contactor')]).toEqual(['finishing', false]);
    m.tag('BB');
    expect(m.ocpp()).toBe('suspendedevse');
    m.send({ type: 'STOP', reason: 'DeAuthorized' });
    expect([m.ocpp(), m.has('contactor'), m.has('locked')]).toEqual(['finishing', false, false]);
    expect(m.effects).toEqual(['accept authorized', 'start AA', 'stop Remote', 'accept authorized', 'start BB', 'stop DeAuthorized']);
  });

  it('A straight to D with ventilation charges (D is plugged and requesting); without ventilation D is a fault', () => {
    const m = start({ settings: { ventilationAvailable: true } });
    m.pilot('d');
    expect(m.system()).toBe('wait_for_auth');
    m.tag('AA');
    expect([m.system(), m.has('contactor'), m.has('locked')]).toEqual(['charging', true, true]);
    m.pilot('a');
    m.tag('AA');
    m.pilot('d');
    expect([m.system(), m.has('contactor')]).toEqual(['charging', true]);
    m.pilot('b');
    expect([m.system(), m.ocpp(), m.has('contactor')]).toEqual(['charging_pause', 'suspendedev', false]);
    m.pilot('d');
    expect([m.system(), m.has('contactor')]).toEqual(['charging', true]);
    expect(m.effects).toEqual(['accept authorized', 'start AA', 'stop EVDisconnected', 'accept authorized', 'start AA']);

    const n = start();
    n.tag('AA');
    n.pilot('d');
    expect([n.system(), n.ocpp(), n.has('contactor'), n.has('pwm'), n.has('locked')]).toEqual(['error', 'faulted', false, false, false]);
    n.tag('AA');
    expect(n.effects).toEqual(['accept authorized', 'refuse faulted']);
    n.send({ type: 'SETTINGS', settings: { ventilationAvailable: true } });
    expect(n.system()).toBe('wait_for_auth'); // the held authorization was cleared by the fault
  });

  it('clearing one of two faults keeps the charge point faulted; the same fault reported twice clears at once', () => {
    const m = start({ pilot: 'b', settings: { freeCharging: true } });
    m.send({ type: 'FAULT', fault: 'overtemperature', active: true });
    m.send({ type: 'FAULT', fault: 'contactor-welded', active: true });
    expect(m.ocpp()).toBe('faulted');
    m.send({ type: 'FAULT', fault: 'overtemperature', active: false });
    expect([m.system(), m.ocpp()]).toEqual(['error', 'faulted']);
    m.send({ type: 'FAULT', fault: 'contactor-welded', active: false });
    expect([m.system(), m.ocpp()]).toEqual(['connected', 'suspendedev']);
    m.send({ type: 'FAULT', fault: 'contactor-not-closing', active: true });
    m.send({ type: 'FAULT', fault: 'contactor-not-closing', active: true });
    m.send({ type: 'FAULT', fault: 'contactor-not-closing', active: false });
    expect(m.ocpp()).toBe('suspendedev');
    // Clearing a fault that is not present changes nothing; a PILOT or SETTINGS event keeps the faults.
    m.send({ type: 'FAULT', fault: 'overtemperature', active: true });
    m.send({ type: 'FAULT', fault: 'contactor-welded', active: false });
    m.pilot('c');
    m.send({ type: 'SETTINGS', settings: { maxCurrentA: 10 } });
    m.send({ type: 'LOAD_LIMIT', amps: 8 });
    expect([m.system(), m.ocpp(), m.has('locked')]).toEqual(['error', 'suspendedevse', true]);
  });

  it('a tag before plug-in: unknown is refused (the refusal beep) and changes nothing; a known one authorizes, again or cancelled', () => {
    const m = start({ settings: { authTimeoutMs: 1000 } });
    m.tag('XX', false);
    expect(m.meta()).toEqual({ systemState: 'idle', authState: 'not_authorized_for_charging', ocppState: 'available' });
    m.tag('AA');
    m.clock.increment(600);
    m.tag('XX', false);
    expect(m.meta().authState).toBe('authorized_for_charging');
    m.tag('BB'); // another known tag authorizes instead, and the hold starts again
    m.clock.increment(600);
    expect(m.meta().authState).toBe('authorized_for_charging');
    m.tag('BB');
    expect(m.meta().authState).toBe('not_authorized_for_charging');
    m.pilot('b');
    m.tag('XX', false);
    expect(m.system()).toBe('wait_for_auth');
    expect(m.effects).toEqual(['refuse unknown', 'accept authorized', 'refuse unknown', 'accept authorized', 'accept cancelled', 'refuse unknown']);
  });

  it('settings and the load limit keep what they do not name; the input pilot and settings set the start', () => {
    const m = start({ pilot: 'b', settings: { freeCharging: true, maxCurrentA: 10 } });
    expect(m.actor.getSnapshot().context).toMatchObject({ pilot: 'b', loadLimitA: null, faults: [], authorization: null });
    expect(m.actor.getSnapshot().context.settings).toEqual({
      freeCharging: true,
      chargingEnabled: true,
      ventilationAvailable: false,
      authTimeoutMs: 30_000,
      maxCurrentA: 10,
    });
    m.send({ type: 'LOAD_LIMIT', amps: 8 });
    m.send({ type: 'SETTINGS', settings: { ventilationAvailable: true } });
    m.send({ type: 'FAULT', fault: 'overtemperature', active: false });
    expect(m.actor.getSnapshot().context).toMatchObject({ loadLimitA: 8, settings: { freeCharging: true, maxCurrentA: 10, ventilationAvailable: true } });
  });
});
