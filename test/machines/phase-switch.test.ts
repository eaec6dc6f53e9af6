import { describe, expect, test } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { POWER_CUT_DELAY_MS } from '../../machines/charge-cycle.js';
import { PHASE_SWITCH_DEFAULTS, phaseSwitchMachine, type PhaseCount, type PhaseSwitchParams } from '../../machines/phase-switch.js';

/**
 * The 1-/3-phase switch machine alone (machines/phase-switch.ts) on a simulated clock: each time and bound at its
 * edge (a millisecond before, at it), each threshold on both sides, and what the sequence commands, in order. The
 * model-based test (test/model/phase-switch.model.test.ts) covers every state and transition against the oracle;
 * these pin the numbers the oracle does not know (hold time, drain and contactor timeouts, settle time, idle current).
 */

function start(phases: PhaseCount = 3, params: Partial<PhaseSwitchParams> = {}) {
  const commands: string[] = [];
  const clock = new SimulatedClock();
  const machine = phaseSwitchMachine.provide({
    actions: {
      openMainContactor: () => void commands.push('open main'),
      setPhaseContactor: (_, p: { phases: PhaseCount }) => void commands.push(`phases ${p.phases}`),
      switchFailed: () => void commands.push('failed'),
    },
  });
  const actor = createActor(machine, { input: { phases, params }, clock }).start();
  // Charging: the main contactor reported closed, the EV drawing.
  actor.send({ type: 'CONTACTOR', closed: true });
  actor.send({ type: 'DRAW', amps: 16 });
  const at = (state: object | string) => actor.getSnapshot().matches(state as never);
  /** Runs a switch's sequence to its end: the EV stops, the main contactor reports open, the settle time. */
  const complete = () => {
    actor.send({ type: 'DRAW', amps: 0 });
    actor.send({ type: 'CONTACTOR', closed: false });
    clock.increment(actor.getSnapshot().context.params.settleMs);
    actor.send({ type: 'CONTACTOR', closed: true });
    actor.send({ type: 'DRAW', amps: 16 });
  };
  return { actor, clock, commands, at, complete, context: () => actor.getSnapshot().context };
}

test('the defaults are the documented ones (docs/energy.md, "Phase switching")', () => {
  expect(PHASE_SWITCH_DEFAULTS).toEqual({
    upHoldMs: 600_000,
    minIntervalMs: 300_000,
    maxPerSession: 4,
    idleBelowA: 0.5,
    drainTimeoutMs: POWER_CUT_DELAY_MS,
    contactorTimeoutMs: 2_000,
    settleMs: 10_000,
  });
  expect(POWER_CUT_DELAY_MS).toBe(6_000);
  const m = start();
  expect(m.context()).toMatchObject({ params: PHASE_SWITCH_DEFAULTS, phases: 3, wanted: 3, switches: 0 });
});

describe('when it switches', () => {
  test('down at once; up only after three phases were wanted for the whole hold time', () => {
    const down = start(3);
    down.actor.send({ type: 'WANT', phases: 1 });
    expect(down.at({ switching: 'draining' })).toBe(true);
    expect(down.actor.getSnapshot().hasTag('pause')).toBe(true);

    const up = start(1);
    up.actor.send({ type: 'WANT', phases: 3 });
    expect(up.at({ ready: 'upHold' })).toBe(true);
    up.clock.increment(PHASE_SWITCH_DEFAULTS.upHoldMs - 1);
    expect(up.at('ready')).toBe(true);
    up.clock.increment(1);
    expect(up.at({ switching: 'draining' })).toBe(true);
  });

  test('a wish that goes back during the hold time cancels it; the same wish again starts it anew', () => {
    const m = start(1);
    m.actor.send({ type: 'WANT', phases: 3 });
    m.clock.increment(PHASE_SWITCH_DEFAULTS.upHoldMs - 10);
    m.actor.send({ type: 'WANT', phases: 1 });
    expect(m.at({ ready: 'steady' })).toBe(true);
    m.actor.send({ type: 'WANT', phases: 3 });
    m.clock.increment(PHASE_SWITCH_DEFAULTS.upHoldMs - 1);
    expect(m.at({ ready: 'upHold' })).toBe(true);
    m.clock.increment(1);
    expect(m.at('switching')).toBe(true);
  });

  test('the same phase count as now: nothing', () => {
    for (const phases of [1, 3] as const) {
      const m = start(phases);
      m.actor.send({ type: 'WANT', phases });
      m.clock.increment(PHASE_SWITCH_DEFAULTS.upHoldMs);
      expect(m.at({ ready: 'steady' }), String(phases)).toBe(true);
      expect(m.commands).toEqual([]);
    }
  });

  test('the next switch waits the minimum interval after the last one ended (and an up switch its hold time after that)', () => {
    const m = start(3);
    m.actor.send({ type: 'WANT', phases: 1 });
    m.complete();
    expect(m.at('cooldown')).toBe(true);
    m.actor.send({ type: 'WANT', phases: 3 });
    m.clock.increment(PHASE_SWITCH_DEFAULTS.minIntervalMs - 1);
    expect(m.at('cooldown')).toBe(true);
    m.clock.increment(1);
    expect(m.at({ ready: 'upHold' })).toBe(true);
    m.clock.increment(PHASE_SWITCH_DEFAULTS.upHoldMs);
    expect(m.at('switching')).toBe(true);
  });

  test('at most maxPerSession switches a session; a new session allows them again', () => {
    const m = start(3, { maxPerSession: 2, minIntervalMs: 1_000, upHoldMs: 1_000 });
    m.actor.send({ type: 'WANT', phases: 1 });
    m.complete();
    m.clock.increment(1_000);
    m.actor.send({ type: 'WANT', phases: 3 });
    m.clock.increment(1_000);
    m.complete();
    expect(m.context()).toMatchObject({ switches: 2, phases: 3 });
    m.clock.increment(1_000);
    m.actor.send({ type: 'WANT', phases: 1 });
    m.clock.increment(100_000);
    expect(m.at({ ready: 'steady' })).toBe(true);
    m.actor.send({ type: 'SESSION' });
    expect(m.at('switching')).toBe(true); // the wish waiting: the new session's first switch
    expect(m.context().switches).toBe(1);
  });

  test('a session that begins during a switch counts that switch as its first', () => {
    const m = start(3, { minIntervalMs: 1_000, upHoldMs: 1_000 });
    m.actor.send({ type: 'WANT', phases: 1 });
    m.complete();
    m.clock.increment(1_000);
    m.actor.send({ type: 'WANT', phases: 3 });
    m.clock.increment(1_000);
    expect(m.at('switching')).toBe(true);
    expect(m.context().switches).toBe(2);
    m.actor.send({ type: 'SESSION' });
    expect(m.context().switches).toBe(1);
    m.complete();
    m.actor.send({ type: 'SESSION' });
    expect(m.context().switches).toBe(0);
  });
});

describe('the sequence', () => {
  test('draining: the EV counts as stopped below the idle current, not at it', () => {
    const m = start(3);
    m.actor.send({ type: 'WANT', phases: 1 });
    m.actor.send({ type: 'DRAW', amps: PHASE_SWITCH_DEFAULTS.idleBelowA });
    expect(m.at({ switching: 'draining' })).toBe(true);
    m.actor.send({ type: 'DRAW', amps: PHASE_SWITCH_DEFAULTS.idleBelowA - 0.01 });
    expect(m.at({ switching: 'opening' })).toBe(true);
    expect(m.commands).toEqual(['open main']);
  });

  test('an EV that keeps drawing: the main contactor opens anyway after the power-cut time', () => {
    const m = start(3);
    m.actor.send({ type: 'WANT', phases: 1 });
    m.clock.increment(PHASE_SWITCH_DEFAULTS.drainTimeoutMs - 1);
    expect(m.commands).toEqual([]);
    m.clock.increment(1);
    expect(m.commands).toEqual(['open main']);
  });

  test('the phase contactor moves only once the main contactor reports open; then the settle time, with 0 A offered', () => {
    const m = start(3);
    m.actor.send({ type: 'WANT', phases: 1 });
    m.actor.send({ type: 'DRAW', amps: 0 });
    m.clock.increment(PHASE_SWITCH_DEFAULTS.contactorTimeoutMs - 1);
    expect(m.commands).toEqual(['open main']);
    m.actor.send({ type: 'CONTACTOR', closed: false });
    expect(m.commands).toEqual(['open main', 'phases 1']);
    expect(m.context().phases).toBe(1);
    m.clock.increment(PHASE_SWITCH_DEFAULTS.settleMs - 1);
    expect(m.actor.getSnapshot().hasTag('pause')).toBe(true);
    m.clock.increment(1);
    expect(m.at('cooldown')).toBe(true);
    expect(m.actor.getSnapshot().hasTag('pause')).toBe(false);
  });

  test('a main contactor that does not report open in time: the switch fails, the phases stay, it counts', () => {
    const m = start(3);
    m.actor.send({ type: 'WANT', phases: 1 });
    m.actor.send({ type: 'DRAW', amps: 0 });
    m.clock.increment(PHASE_SWITCH_DEFAULTS.contactorTimeoutMs - 1);
    expect(m.at({ switching: 'opening' })).toBe(true);
    m.clock.increment(1);
    expect(m.commands).toEqual(['open main', 'failed']);
    expect(m.at('cooldown')).toBe(true);
    expect(m.context()).toMatchObject({ phases: 3, switches: 1 });
  });

  test('changed parameters apply from then on, the others kept', () => {
    const m = start(3);
    m.actor.send({ type: 'PARAMS', params: { settleMs: 20_000 } });
    expect(m.context().params).toEqual({ ...PHASE_SWITCH_DEFAULTS, settleMs: 20_000 });
    m.actor.send({ type: 'WANT', phases: 1 });
    m.actor.send({ type: 'DRAW', amps: 0 });
    m.actor.send({ type: 'CONTACTOR', closed: false });
    m.clock.increment(19_999);
    expect(m.at({ switching: 'changing' })).toBe(true);
    m.clock.increment(1);
    expect(m.at('cooldown')).toBe(true);
  });

  test('the EV, the main contactor and the wish are taken in every state', () => {
    const m = start(3);
    m.actor.send({ type: 'WANT', phases: 1 });
    m.complete();
    m.actor.send({ type: 'DRAW', amps: 7 });
    m.actor.send({ type: 'CONTACTOR', closed: false });
    m.actor.send({ type: 'WANT', phases: 3 });
    expect(m.context()).toMatchObject({ drawA: 7, mainClosed: false, wanted: 3 });
  });
});
