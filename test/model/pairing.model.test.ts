import { afterAll, describe, expect, it, test } from 'vitest';
import { transition } from 'xstate';
import { PAIRING_DURATION_MS, pairingMachine, type PairingEvent, type PairingSnapshot } from '../../machines/pairing.js';
import { KNOWN, startCharger, UNKNOWN, type Charger } from '../charging/scenario.js';
import { PairingSpec } from './invariants/pairing.js';
import { CoverageRecorder, planPaths, writeReport } from './model.js';

/**
 * Model-based tests of pairing mode: paths generated from machines/pairing.ts, executed through POST/GET
 * /v1/whitelist/pairing and the simulated reader. After each step: the pairing answer (tag or 500), the beeps, and a
 * charge point that no paired tag authorized.
 */

function modelEvents(s: PairingSnapshot): PairingEvent[] {
  const events: PairingEvent[] = [
    { type: 'ENABLE', chargePointIdle: true },
    { type: 'ENABLE', chargePointIdle: false },
  ];
  // Tags only while pairing is on: off, a tag goes to the charge cycle, outside this model.
  if (s.matches('on')) {
    events.push({ type: 'TAG', id: KNOWN, tagType: 'RFID', known: true }, { type: 'TAG', id: UNKNOWN, tagType: 'RFID', known: false });
    events.push({ type: 'xstate.after.pairingDuration.pairing.on' } as never);
  }
  return events;
}

const { paths, candidates } = planPaths(pairingMachine, { events: modelEvents });
const coverage = new CoverageRecorder();

async function execute(c: Charger, event: PairingEvent): Promise<number | undefined> {
  if ((event.type as string).startsWith('xstate.after')) {
    await c.step(PAIRING_DURATION_MS);
    return undefined;
  }
  if (event.type === 'TAG') {
    await c.tag(event.id);
    return undefined;
  }
  if (!event.chargePointIdle) await c.act('plug'); // a vehicle: the charge point is not idle
  const res = await c.api('POST', '/v1/whitelist/pairing');
  if (!event.chargePointIdle) await c.act('unplug');
  return res.status;
}

describe(`pairing, ${paths.length} generated paths`, () => {
  it.each(
    paths.map(
      (p) =>
        [
          p.steps
            .slice(1)
            .map((s) => JSON.stringify(s.event))
            .join(' → ') || '(initial)',
          p,
        ] as const,
    ),
  )('%s', async (_name, path) => {
    const c = await startCharger({ inspect: coverage.inspect });
    try {
      let model = path.steps[0]!.state as PairingSnapshot;
      let beeps = await c.beeps();
      const spec = new PairingSpec();
      for (const [i, step] of path.steps.slice(1).entries()) {
        const [next, actions] = transition(pairingMachine, model, step.event);
        const at = `step ${i + 1}: ${JSON.stringify(step.event)}`;
        const from = c.h.clock.now();
        const status = await execute(c, step.event);
        model = next;
        if (step.event.type === 'ENABLE') {
          expect({ at, status }).toEqual({ at, status: model.context.lastEnable === 'enabled' ? 200 : 500 });
          expect({ at, broken: spec.enable(step.event.chargePointIdle, from, status!) }).toEqual({ at, broken: [] });
        }
        const res = await c.api('GET', '/v1/whitelist/pairing');
        expect({ at, status: res.status, id: res.json.id }).toEqual({ at, status: model.context.tag ? 200 : 500, id: model.context.tag?.id });
        const expectedBeeps = actions.filter((a) => a.type === 'beep').reduce((n, a) => n + (a.params as { count: number }).count, 0);
        const plant = (await c.view()).plant;
        expect({ at, beeps: plant.beeps - beeps }).toEqual({ at, beeps: expectedBeeps });
        if (step.event.type === 'TAG')
          expect({ at, broken: spec.tagRead(step.event.id, step.event.known, from, plant.beeps - beeps) }).toEqual({ at, broken: [] });
        expect({ at, broken: spec.paired(c.h.clock.now(), res.status, res.json.id) }).toEqual({ at, broken: [] });
        beeps = plant.beeps;
        const state = await c.state();
        expect({ at, charge: [state.systemState, state.authState] }).toEqual({ at, charge: ['idle', 'not_authorized_for_charging'] });
      }
    } finally {
      await c.h.stop();
    }
  });
});

/** The oracle over every candidate path on the machine alone (the answers and beeps as the controller derives them). */
describe(`pairing alone against the oracle, ${candidates.length} paths`, () => {
  test('breaks no invariant', () => {
    const failures: string[] = [];
    for (const path of candidates) {
      let model = path.steps[0]!.state as PairingSnapshot;
      const spec = new PairingSpec();
      let now = 0;
      const broken: string[] = [];
      for (const step of path.steps.slice(1)) {
        const event = step.event;
        if ((event.type as string).startsWith('xstate.after')) now += PAIRING_DURATION_MS;
        const [next, actions] = transition(pairingMachine, model, event);
        model = next;
        const beeps = actions.filter((a) => a.type === 'beep').reduce((n, a) => n + (a.params as { count: number }).count, 0);
        if (event.type === 'ENABLE') broken.push(...spec.enable(event.chargePointIdle, now, model.context.lastEnable === 'enabled' ? 200 : 500));
        if (event.type === 'TAG') broken.push(...spec.tagRead(event.id, event.known, now, beeps));
        broken.push(...spec.paired(now, model.context.tag ? 200 : 500, model.context.tag?.id));
      }
      if (broken.length)
        failures.push(
          `${path.steps
            .slice(1)
            .map((s) => JSON.stringify(s.event))
            .join(' → ')}: ${broken.join('; ')}`,
        );
    }
    expect(failures.slice(0, 5), `${failures.length} of ${candidates.length} paths`).toEqual([]);
  });
});

afterAll(() => {
  const report = coverage.report('pairing', pairingMachine, paths.length);
  writeReport(report);
  expect(report.states.missing).toEqual([]);
  expect(report.transitions.missing).toEqual([]);
});
