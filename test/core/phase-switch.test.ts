import { describe, expect, test } from 'vitest';
import { PHASE_SWITCH_DEFAULTS } from '../../machines/phase-switch.js';
import { createPhaseSwitching } from '../../services/core/phase-switching.js';
import { charging, KNOWN, useChargers, type Charger } from '../charging/scenario.js';
import { PhaseSwitchSpec } from '../model/energy-invariants.js';

/**
 * 1-/3-phase switching in the charge-point core (services/core/phase-switching.ts, machines/phase-switch.ts) on the
 * controller with simulated hardware: the phase contactor (GPIO_PHASE_SWITCH), the sequence as the plant sees it,
 * checked step by step by the independent oracle (test/model/energy-invariants.ts), and the interlock.
 */

const chargers = useChargers();
const WITH_SWITCH = { env: { GPIO_PHASE_SWITCH: '16' } };
const phasesOf = (c: Charger) => c.h.controller.charging.coreState()!.phases;

/** Steps the clock in small steps for `ms`, feeding the oracle what the plant shows; answers the rules broken. */
async function watch(c: Charger, spec: PhaseSwitchSpec, ms: number, stepMs = 100): Promise<string[]> {
  const broken: string[] = [];
  let { plant } = await c.view();
  for (let t = 0; t < ms; t += stepMs) {
    await c.step(stepMs);
    const next = (await c.view()).plant;
    // What the plant saw at the move (main contactor, PWM), however short the step.
    const moved = next.phaseContactor.moves !== plant.phaseContactor.moves;
    if (moved) {
      spec.contactor(next.phaseContactor.movesUnderLoad !== plant.phaseContactor.movesUnderLoad);
      broken.push(...spec.phaseChange(c.h.clock.now(), next.phaseContactor.movesOffered === plant.phaseContactor.movesOffered));
    }
    spec.contactor(next.contactorClosed);
    plant = next;
  }
  return broken;
}

describe('phase switching', () => {
  test('without a phase contactor: the wired phases, nothing to switch, a wish changes nothing', async () => {
    const c = await chargers.start();
    c.h.controller.energy.stop(); // the test speaks for the allocator: it names the phase count wanted
    expect(phasesOf(c)).toEqual({ actual: 3, wired: 3, switchable: false, switching: false, switches: 0 });
    await charging(c);
    c.h.controller.charging.setPhaseSwitch({ wanted: 1 });
    await c.step(20_000);
    expect(phasesOf(c)).toMatchObject({ actual: 3, switching: false });
    const { plant } = await c.view();
    expect(plant.phaseContactor).toBeUndefined();
    expect(plant.currentsA).toEqual([16, 16, 16]);
  });

  test('down to one phase while charging: pause, main contactor open, phase contactor, settle, resume; the transaction goes on', async () => {
    const c = await chargers.start(WITH_SWITCH);
    c.h.controller.energy.stop(); // the test speaks for the allocator: it names the phase count wanted
    expect(phasesOf(c)).toEqual({ actual: 3, wired: 3, switchable: true, switching: false, switches: 0 });
    await charging(c);
    const before = await c.state();
    expect((await c.view()).plant).toMatchObject({ currentsA: [16, 16, 16], powerW: 16 * 230 * 3, phaseContactor: { closed: true } });

    const spec = new PhaseSwitchSpec({ minIntervalMs: PHASE_SWITCH_DEFAULTS.minIntervalMs, maxPerSession: PHASE_SWITCH_DEFAULTS.maxPerSession });
    spec.contactor(true);
    c.h.controller.charging.setPhaseSwitch({ wanted: 1 });
    await c.step(0);
    expect(phasesOf(c)).toMatchObject({ switching: true, switches: 1 });
    expect((await c.view()).plant.pwmCurrentA).toBeNull();
    expect((await c.state()).systemState).toBe('charging_pause');

    const broken = await watch(c, spec, PHASE_SWITCH_DEFAULTS.settleMs + 3_000);
    expect(broken).toEqual([]);
    const { plant } = await c.view();
    expect(plant.phaseContactor).toEqual({ closed: false, moves: 2, movesUnderLoad: 0, movesOffered: 0 });
    expect(plant).toMatchObject({ contactorClosed: true, pwmCurrentA: 16, currentsA: [16, 0, 0], powerW: 16 * 230, activePhases: 1 });
    expect(phasesOf(c)).toEqual({ actual: 1, wired: 3, switchable: true, switching: false, switches: 1 });
    const after = await c.state();
    expect(after.systemState).toBe('charging');
    expect(after.transaction.transactionId).toBe(before.transaction.transactionId);

    // Back up: only after the minimum interval and the hold time, the same way.
    c.h.controller.charging.setPhaseSwitch({ wanted: 3 });
    expect(await watch(c, spec, PHASE_SWITCH_DEFAULTS.minIntervalMs - 5_000, 1_000)).toEqual([]);
    expect(phasesOf(c).actual).toBe(1);
    expect(await watch(c, spec, PHASE_SWITCH_DEFAULTS.upHoldMs - 10_000, 1_000)).toEqual([]);
    expect(phasesOf(c)).toMatchObject({ actual: 1, switching: false });
    // The sequence itself in steps short enough to see its order.
    expect(await watch(c, spec, PHASE_SWITCH_DEFAULTS.settleMs + 30_000)).toEqual([]);
    expect(phasesOf(c)).toMatchObject({ actual: 3, switches: 2 });
    expect((await c.view()).plant).toMatchObject({ currentsA: [16, 16, 16], phaseContactor: { movesUnderLoad: 0, movesOffered: 0 } });
  });

  test("the main contactor opens for a switch only once the charging meter shows the EV's draw has fallen", async () => {
    // The meter the core reads, made to show the EV still drawing after the PWM went off (an EV slow to reduce).
    const shown: { currentsA: number[] | null } = { currentsA: null };
    const c = await chargers.start({
      ...WITH_SWITCH,
      chargePoint: (hw) => ({
        ...hw,
        meter: { read: async () => ({ ...(await hw.meter.read()), ...(shown.currentsA ? { currentsA: shown.currentsA } : {}) }) },
      }),
    });
    c.h.controller.energy.stop(); // the test speaks for the allocator: it names the phase count wanted
    await charging(c);
    shown.currentsA = [16, 16, 16];
    c.h.controller.charging.setPhaseSwitch({ wanted: 1 });
    await c.step(PHASE_SWITCH_DEFAULTS.drainTimeoutMs - 1_000);
    expect((await c.view()).plant).toMatchObject({ pwmCurrentA: null, contactorClosed: true, phaseContactor: { closed: true, moves: 1 } });
    shown.currentsA = null; // the meter's next read shows what the EV draws: nothing
    await c.step(1_500);
    expect((await c.view()).plant.contactorClosed).toBe(false);
  });

  test('the mode: always one phase from the start; never switch keeps three phases and reports nothing switchable', async () => {
    const c = await chargers.start(WITH_SWITCH);
    c.h.controller.energy.stop(); // the test speaks for the allocator: it names the phase count wanted
    const res = await c.api('PATCH', '/v1/settings', { params: [{ key: 'PhaseSwitchMode', value: 1 }] });
    expect(res.status, res.text).toBe(200);
    await c.step(PHASE_SWITCH_DEFAULTS.settleMs + 1_000);
    expect(phasesOf(c)).toMatchObject({ actual: 1, switchable: true });
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await c.step(1_000);
    expect((await c.view()).plant.currentsA).toEqual([16, 0, 0]);
    await c.api('PATCH', '/v1/settings', { params: [{ key: 'PhaseSwitchMode', value: 3 }] });
    await c.step(0);
    expect(phasesOf(c).switchable).toBe(false);
  });
});

describe('the interlock in the output path', () => {
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  function rig(mainClosed: boolean, feedback?: boolean) {
    const phase = {
      closed: true,
      set(closed: boolean) {
        this.closed = closed;
      },
      commanded() {
        return this.closed;
      },
      feedback: () => undefined,
    };
    const main = { set() {}, commanded: () => mainClosed, feedback: () => feedback };
    const limits: (number | null)[] = [];
    const switching = createPhaseSwitching({
      hardware: { contactor: main, phaseContactor: phase },
      wired: 3,
      mode: 'auto',
      log,
      drawA: () => 0,
      transactionId: () => null,
      limit: (a) => void limits.push(a),
      openMainContactor: () => {},
      changed: () => {},
    });
    return { phase, switching, limits };
  }

  test('the phase contactor never moves while the main contactor is commanded or reported closed, whatever the machine asks', () => {
    for (const [commanded, feedback] of [
      [true, undefined],
      [true, true],
      [false, true],
    ] as const) {
      const { phase, switching } = rig(commanded, feedback);
      switching.actions.setPhaseContactor(undefined, { phases: 1 });
      expect(phase.closed, `commanded ${commanded}, feedback ${feedback}`).toBe(true);
    }
    const { phase, switching, limits } = rig(false, false);
    switching.actions.openMainContactor();
    expect(limits).toEqual([0]);
    switching.actions.setPhaseContactor(undefined, { phases: 1 });
    expect(phase.closed).toBe(false);
  });
});
