import { createActor, SimulatedClock } from 'xstate';
import { describe, expect, test } from 'vitest';
import { PHASE_SWITCH_DEFAULTS, phaseSwitchMachine, type PhaseCount } from '../../machines/phase-switch.js';
import type { PhaseSwitchMode } from '../../services/core/phase-switch-mode.js';
import { createPhaseSwitching } from '../../services/core/phase-switching.js';

/**
 * The core's phase switching (services/core/phase-switching.ts) on its own, with the real phase-switch machine on a
 * simulated clock and contactors whose command and auxiliary contact the test sets apart: the sequence waits for
 * what the EV draws and for what the main contactor reports, not only for what was commanded (the simulated plant of
 * test/core/phase-switch.test.ts answers at once, so there the order cannot show).
 */

interface RigOptions {
  wired?: PhaseCount;
  mode?: PhaseSwitchMode;
  /** The main contactor at start: commanded and reported closed (charging) or open. */
  mainClosed?: boolean;
  /** The main contactor follows its open command (its auxiliary contact is set by the test). */
  mainOpens?: boolean;
  /** The phase contactor's setting at start (closed: three phases). */
  phaseClosed?: boolean;
}

function rig(o: RigOptions = {}) {
  const logged = { warn: [] as [object, string][], error: [] as [object, string][] };
  const log = {
    debug() {},
    info() {},
    warn: (f: object, m: string) => void logged.warn.push([f, m]),
    error: (f: object, m: string) => void logged.error.push([f, m]),
  };
  const phase = {
    closed: o.phaseClosed ?? true,
    moves: 0,
    set(closed: boolean) {
      this.closed = closed;
      this.moves++;
    },
    commanded() {
      return this.closed;
    },
    feedback: (): boolean | undefined => undefined,
  };
  const mainClosed = o.mainClosed ?? true;
  const main = {
    closed: false,
    /** Its auxiliary contact. */
    reported: false as boolean | undefined,
    set(closed: boolean) {
      this.closed = closed;
    },
    commanded() {
      return this.closed;
    },
    feedback() {
      return this.reported;
    },
  };
  const world = { drawA: mainClosed ? 16 : 0, transactionId: (mainClosed ? 'tx-1' : null) as string | null, opens: 0, changed: 0 };
  const limits: (number | null)[] = [];
  const switching = createPhaseSwitching({
    hardware: { contactor: main, phaseContactor: phase },
    wired: o.wired ?? 3,
    mode: o.mode ?? 'auto',
    log,
    drawA: () => world.drawA,
    transactionId: () => world.transactionId,
    limit: (amps) => void limits.push(amps),
    openMainContactor: () => {
      world.opens++;
      if (o.mainOpens ?? true) main.set(false);
    },
    changed: () => void world.changed++,
  });
  const clock = new SimulatedClock();
  /** As the core starts it: the phase contactor set (the main one open), the machine started and attached, then charging. */
  const start = () => {
    const phases = switching.initialPhases();
    main.closed = main.reported = mainClosed;
    phase.moves = 0; // the moves of the sequence from here
    const actor = createActor(phaseSwitchMachine.provide({ actions: switching.actions }), { input: { phases }, clock }).start();
    switching.attach(actor);
    switching.feed();
    return actor;
  };
  return { logged, phase, main, world, limits, switching, clock, start };
}

describe('the switch sequence follows what the EV draws and what the main contactor reports', () => {
  test('down to one phase: 0 A, the EV stops, the main contactor opens and reports it, the phase contactor moves, settle, resume', () => {
    const r = rig();
    r.start();
    r.switching.setLimit(16);
    expect(r.limits).toEqual([16]);
    expect(r.switching.state()).toEqual({ actual: 3, wired: 3, switchable: true, switching: false, switches: 0 });

    r.switching.configure({ wanted: 1 });
    expect(r.limits).toEqual([16, 0]); // the PWM off first
    expect(r.switching.state()).toMatchObject({ switching: true, switches: 1 });
    // The EV still draws: the main contactor stays closed.
    r.switching.feed();
    expect(r.world.opens).toBe(0);

    r.world.drawA = 0;
    r.switching.feed();
    expect(r.world.opens).toBe(1);
    // Commanded open, its auxiliary contact still closed: the phase contactor waits (and the interlock is not tried).
    r.switching.feed();
    expect(r.phase.moves).toBe(0);

    r.main.reported = false;
    r.switching.feed();
    expect(r.phase).toMatchObject({ closed: false, moves: 1 });
    expect(r.switching.state()).toMatchObject({ actual: 1, switching: true });
    r.clock.increment(PHASE_SWITCH_DEFAULTS.settleMs - 1);
    expect(r.limits).toEqual([16, 0]);
    r.clock.increment(1);
    expect(r.limits).toEqual([16, 0, 16]); // each change once
    expect(r.switching.state()).toEqual({ actual: 1, wired: 3, switchable: true, switching: false, switches: 1 });
    expect(r.logged).toEqual({ warn: [], error: [] });
  });

  test('only what changed is sent: a feed with nothing new changes nothing', () => {
    const r = rig();
    r.start();
    const before = r.world.changed;
    r.switching.feed();
    r.switching.feed();
    expect(r.world.changed).toBe(before);
    r.world.drawA = 12;
    r.switching.feed();
    expect(r.world.changed).toBe(before + 1);
  });

  test('the count of switches starts again with the next session, not at the end of this one', () => {
    const r = rig();
    r.start();
    r.switching.configure({ wanted: 1 });
    r.world.drawA = 0;
    r.switching.feed();
    r.main.reported = false;
    r.switching.feed();
    r.clock.increment(PHASE_SWITCH_DEFAULTS.settleMs);
    expect(r.switching.state()).toMatchObject({ actual: 1, switching: false, switches: 1 });
    r.world.transactionId = null;
    r.switching.feed();
    expect(r.switching.state().switches).toBe(1);
    r.world.transactionId = 'tx-2';
    r.switching.feed();
    expect(r.switching.state().switches).toBe(0);
  });

  test('a main contactor that does not open: the switch fails after its time, warned; the phase contactor untouched', () => {
    const r = rig({ mainOpens: false });
    r.start();
    r.switching.setLimit(16);
    r.switching.configure({ wanted: 1 });
    r.world.drawA = 0;
    r.switching.feed();
    expect(r.world.opens).toBe(1);
    r.clock.increment(PHASE_SWITCH_DEFAULTS.contactorTimeoutMs);
    expect(r.logged.warn).toEqual([[{}, 'phase switch failed: the main contactor did not open in time; the phases stay']]);
    expect(r.logged.error).toEqual([]);
    expect(r.phase.moves).toBe(0);
    expect(r.limits).toEqual([16, 0, 16]);
    expect(r.switching.state()).toMatchObject({ actual: 3, switching: false, switches: 1 });
  });

  test('the interlock says why it held the phase contactor', () => {
    const r = rig();
    r.main.closed = true; // commanded closed, no auxiliary contact
    r.main.reported = undefined;
    r.switching.actions.setPhaseContactor(undefined, { phases: 1 });
    expect(r.phase.moves).toBe(0);
    expect(r.logged.error).toEqual([[{ phases: 1 }, 'phase switch: interlock: the phase contactor stays, the main contactor is not open']]);
  });
});

describe('the mode and the wiring', () => {
  test('a phase contactor on a 1-phase supply is never moved: one phase, nothing switchable, a wish changes nothing', () => {
    const r = rig({ wired: 1, mainClosed: false, phaseClosed: false });
    expect(r.switching.initialPhases()).toBe(1);
    r.start();
    r.switching.configure({ wanted: 3 });
    expect(r.phase.moves).toBe(0);
    expect(r.limits).toEqual([]);
    expect(r.switching.state()).toEqual({ actual: 1, wired: 1, switchable: false, switching: false, switches: 0 });
  });

  test('the phases at start: one phase held by force1, three otherwise (the phase contactor set before the charge cycle runs)', () => {
    for (const [mode, phases] of [
      ['force1', 1],
      ['force3', 3],
      ['auto', 3],
      ['never', 3],
    ] as const) {
      const r = rig({ mode, mainClosed: false, phaseClosed: phases === 1 });
      expect(r.switching.initialPhases(), mode).toBe(phases);
      expect(r.phase, mode).toMatchObject({ closed: phases === 3, moves: 1 });
    }
  });

  test('never and force3 keep three phases whatever the allocator wishes', () => {
    for (const mode of ['never', 'force3'] as const) {
      const r = rig({ mode });
      r.start();
      r.switching.setLimit(16);
      r.switching.configure({ wanted: 1 });
      r.world.drawA = 0;
      r.switching.feed();
      r.clock.increment(PHASE_SWITCH_DEFAULTS.upHoldMs);
      expect(r.limits, mode).toEqual([16]);
      expect(r.world.opens, mode).toBe(0);
      expect(r.switching.state(), mode).toMatchObject({ actual: 3, switching: false, switches: 0, switchable: mode !== 'never' });
    }
  });

  test('before the machine runs: the phase contactor as commanded (no auxiliary contact), no switch', () => {
    const r = rig();
    expect(r.switching.state()).toEqual({ actual: 3, wired: 3, switchable: true, switching: false, switches: 0 });
    expect(r.switching.snapshot()).toBeNull();
  });
});
