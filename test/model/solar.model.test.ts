import { afterAll, describe, expect, it, test } from 'vitest';
import { createActor } from 'xstate';
import { SOLAR_DEFAULTS, solarMachine, type SolarEvent, type SolarSnapshot } from '../../machines/solar.js';
import { ManualClock } from '../clock.js';
import { pathName, runAlone, shortestTimer } from './alone.js';
import { SolarSpec } from './energy-invariants.js';
import { CoverageRecorder, planPaths, writeReport, type ModelPath } from './model.js';

/**
 * Model-based tests of solar start and stop (machines/solar.ts), not wired into the charge point yet: paths
 * generated from the machine, run on a real actor with a manual clock. After every step the actor equals the model,
 * and the independent oracle (energy-invariants.ts) checks the thresholds, their delays, the minimum charge time,
 * the minimum pause and the bound of contactor operations per hour.
 */

/** 6 A on one phase. */
const MINIMUM_W = 1_380;
const START_W = MINIMUM_W + SOLAR_DEFAULTS.startMarginW;
const STOP_W = MINIMUM_W - SOLAR_DEFAULTS.stopMarginW;
/** None known, below the stop threshold, in the dead band, above the start threshold. */
const SURPLUS_W = [null, STOP_W - 100, STOP_W + 100, START_W + 100];
const START_MARGINS_W = [SOLAR_DEFAULTS.startMarginW, 400];
const input = { minimumW: MINIMUM_W };
const rules = { startW: START_W, stopW: STOP_W, ...SOLAR_DEFAULTS };

function modelEvents(s: SolarSnapshot): SolarEvent[] {
  const { context } = s;
  return [
    ...SURPLUS_W.filter((w) => w !== context.surplusW).map((watts): SolarEvent => ({ type: 'SURPLUS', watts, minimumW: MINIMUM_W })),
    { type: 'MODE', mode: context.mode === 'solar' ? 'fast' : 'solar' },
    { type: 'SESSION' },
    // A changed threshold applies at once (the start margin: the highest surplus falls into the dead band).
    { type: 'PARAMS', params: { startMarginW: context.params.startMarginW === START_MARGINS_W[0] ? START_MARGINS_W[1]! : START_MARGINS_W[0]! } },
    ...(shortestTimer(solarMachine)(s as never) as SolarEvent[]),
  ];
}

const { paths, candidates } = planPaths(solarMachine, { events: modelEvents, input });
const coverage = new CoverageRecorder();

function run(path: ModelPath<SolarEvent>, withCoverage: boolean): string[] {
  const spec = new SolarSpec(rules);
  const broken: string[] = [];
  runAlone({
    machine: solarMachine,
    id: 'solar',
    path,
    input,
    ...(withCoverage ? { coverage } : {}),
    step: (at, actor, _model, event, clock) => {
      if (event.type === 'SURPLUS') spec.surplus(clock.now(), event.watts);
      if (event.type === 'MODE') spec.mode(event.mode === 'solar');
      if (event.type === 'SESSION') spec.session();
      if (event.type === 'PARAMS') spec.thresholds(clock.now(), { startW: MINIMUM_W + event.params.startMarginW! });
      broken.push(...spec.observe(clock.now(), actor.getSnapshot().hasTag('run')).map((b) => `${at}: ${b}`));
    },
  });
  return broken;
}

describe(`solar start and stop, ${paths.length} generated paths on the actor`, () => {
  it.each(paths.map((p) => [pathName(p), p] as const))('%s', (_name, path) => {
    expect(run(path, true)).toEqual([]);
  });
});

test(`solar against the oracle, every one of ${candidates.length} candidate paths`, () => {
  const failures = candidates.flatMap((p) => run(p, false).map((b) => `${pathName(p)}: ${b}`));
  expect(failures.slice(0, 5), `${failures.length} broken`).toEqual([]);
});

/**
 * A cloudy day: the surplus jumps between full sun and none every 1 to 26 minutes for 8 hours. The logic is
 * exercised with its defaults and the operations per hour are measured and printed; none of the oracle's rules breaks.
 */
test('a cloudy day cycles the contactor at most 6 times an hour', () => {
  const clock = new ManualClock(0);
  const actor = createActor(solarMachine, { clock, input: { minimumW: MINIMUM_W, mode: 'solar' } });
  actor.start();
  const spec = new SolarSpec(rules);
  spec.mode(true);
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const broken: string[] = [];
  let sunny = true;
  while (clock.now() < 8 * 3_600_000) {
    const watts = sunny ? 3_500 : 200;
    actor.send({ type: 'SURPLUS', watts, minimumW: MINIMUM_W });
    spec.surplus(clock.now(), watts);
    broken.push(...spec.observe(clock.now(), actor.getSnapshot().hasTag('run')));
    const holdS = 60 + Math.floor(random() * 1_500);
    for (let s = 0; s < holdS; s += 10) {
      clock.increment(10_000);
      broken.push(...spec.observe(clock.now(), actor.getSnapshot().hasTag('run')));
    }
    sunny = !sunny;
  }
  actor.stop();
  const hours = Array.from({ length: 8 }, (_, h) => spec.operations.filter((t) => t >= h * 3_600_000 && t < (h + 1) * 3_600_000).length);
  console.log(`solar on a cloudy day (8 h, defaults): contactor operations per hour ${hours.join(', ')}`);
  expect(broken).toEqual([]);
  expect(Math.max(...hours)).toBeLessThanOrEqual(6);
  expect(spec.operations.length).toBeGreaterThan(0);
});

test('a changed setting applies to the next delay', () => {
  const clock = new ManualClock(0);
  const actor = createActor(solarMachine, { clock, input: { minimumW: MINIMUM_W, mode: 'solar' } });
  actor.start();
  actor.send({ type: 'PARAMS', params: { startDelayMs: 5_000 } });
  actor.send({ type: 'SURPLUS', watts: 5_000, minimumW: MINIMUM_W });
  clock.increment(4_999);
  expect(actor.getSnapshot().hasTag('run')).toBe(false);
  clock.increment(1);
  expect(actor.getSnapshot().hasTag('run')).toBe(true);
  actor.stop();
});

afterAll(() => {
  const report = coverage.report('solar', solarMachine, paths.length);
  writeReport(report);
  expect(report.states.missing).toEqual([]);
  expect(report.transitions.missing).toEqual([]);
  expect(report.states.covered).toBe(report.states.total);
  expect(report.transitions.covered).toBe(report.transitions.total);
});
