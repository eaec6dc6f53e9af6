import { afterAll, describe, expect, it, test } from 'vitest';
import { createActor } from 'xstate';
import { phaseSwitchMachine, PHASE_SWITCH_DEFAULTS, type PhaseCount, type PhaseSwitchEvent, type PhaseSwitchSnapshot } from '../../machines/phase-switch.js';
import { pathName, runAlone, soleTimer } from './alone.js';
import { PhaseSwitchSpec } from './energy-invariants.js';
import { CoverageRecorder, planPaths, writeReport, type ModelPath } from './model.js';

/**
 * Model-based tests of the 1-/3-phase switch (machines/phase-switch.ts), not wired into the charge point yet: paths
 * generated from the machine, run on a real actor with a manual clock and a plant (the main contactor's feedback,
 * the EV's current, the phase contactor). After every step the actor equals the model, and the independent oracle
 * (energy-invariants.ts) checks that the phase contactor never moves with the main contactor closed or current
 * offered, the minimum interval, and the bound on switches and contactor openings per session.
 */

const MAX_PER_SESSION = 2;
const SETTLE_MS = [PHASE_SWITCH_DEFAULTS.settleMs, 20_000];
const input = { phases: 3 as PhaseCount, params: { maxPerSession: MAX_PER_SESSION } };

function modelEvents(s: PhaseSwitchSnapshot): PhaseSwitchEvent[] {
  const { context } = s;
  return [
    { type: 'WANT', phases: context.wanted === 3 ? 1 : 3 },
    { type: 'DRAW', amps: context.drawA > 0 ? 0 : 10 },
    { type: 'CONTACTOR', closed: !context.mainClosed },
    { type: 'SESSION' },
    // A changed setting applies to the next timer armed (the settle time: outside the oracle's rules).
    { type: 'PARAMS', params: { settleMs: context.params.settleMs === SETTLE_MS[0] ? SETTLE_MS[1]! : SETTLE_MS[0]! } },
    ...(soleTimer(s as never) as PhaseSwitchEvent[]),
  ];
}

const { paths, candidates } = planPaths(phaseSwitchMachine, { events: modelEvents, input });
const coverage = new CoverageRecorder();

/** Runs a path with the plant and the oracle; answers the rules broken. */
function run(path: ModelPath<PhaseSwitchEvent>, withCoverage: boolean): string[] {
  const spec = new PhaseSwitchSpec({ minIntervalMs: PHASE_SWITCH_DEFAULTS.minIntervalMs, maxPerSession: MAX_PER_SESSION });
  const plant = { phases: input.phases as PhaseCount };
  const commands: ({ kind: 'open' } | { kind: 'phases'; phases: PhaseCount })[] = [];
  const broken: string[] = [];
  const machine = phaseSwitchMachine.provide({
    actions: {
      openMainContactor: () => void commands.push({ kind: 'open' }),
      setPhaseContactor: (_, params: { phases: PhaseCount }) => void commands.push({ kind: 'phases', phases: params.phases }),
    },
  });
  runAlone({
    machine,
    id: 'phaseSwitch',
    path,
    input,
    ...(withCoverage ? { coverage } : {}),
    step: (at, actor, _model, event, clock) => {
      if (event.type === 'SESSION') spec.session();
      if (event.type === 'CONTACTOR') spec.contactor(event.closed);
      const pause = actor.getSnapshot().hasTag('pause');
      for (const c of commands.splice(0)) {
        if (c.kind === 'open') broken.push(...spec.openMain(pause).map((b) => `${at}: ${b}`));
        else if (c.phases !== plant.phases) {
          broken.push(...spec.phaseChange(clock.now(), pause).map((b) => `${at}: ${b}`));
          plant.phases = c.phases;
        }
      }
    },
  });
  return broken;
}

describe(`phase switch, ${paths.length} generated paths on the actor`, () => {
  it.each(paths.map((p) => [pathName(p), p] as const))('%s', (_name, path) => {
    expect(run(path, true)).toEqual([]);
  });
});

test(`phase switch against the oracle, every one of ${candidates.length} candidate paths`, () => {
  const failures = candidates.flatMap((p) => {
    try {
      return run(p, false).map((b) => `${pathName(p)}: ${b}`);
    } catch (e) {
      return [`${pathName(p)}: ${String(e).slice(0, 200)}`];
    }
  });
  expect(failures.slice(0, 5), `${failures.length} broken`).toEqual([]);
});

test('a switch down runs the whole sequence in order, with the main contactor open before the phase contactor moves', () => {
  const order: string[] = [];
  const machine = phaseSwitchMachine.provide({
    actions: {
      openMainContactor: () => void order.push('open main'),
      setPhaseContactor: (_, p: { phases: PhaseCount }) => void order.push(`phases ${p.phases}`),
    },
  });
  const actor = createActor(machine, { input: { phases: 3 } });
  actor.start();
  actor.send({ type: 'CONTACTOR', closed: true });
  actor.send({ type: 'DRAW', amps: 16 });
  actor.send({ type: 'WANT', phases: 1 });
  expect(actor.getSnapshot().matches({ switching: 'draining' })).toBe(true);
  expect(actor.getSnapshot().hasTag('pause')).toBe(true);
  actor.send({ type: 'DRAW', amps: 0 });
  expect(order).toEqual(['open main']);
  actor.send({ type: 'CONTACTOR', closed: false });
  expect(order).toEqual(['open main', 'phases 1']);
  expect(actor.getSnapshot().context.phases).toBe(1);
  actor.stop();
});

afterAll(() => {
  const report = coverage.report('phaseSwitch', phaseSwitchMachine, paths.length);
  writeReport(report);
  expect(report.states.missing).toEqual([]);
  expect(report.transitions.missing).toEqual([]);
  expect(report.states.covered).toBe(report.states.total);
  expect(report.transitions.covered).toBe(report.transitions.total);
});
