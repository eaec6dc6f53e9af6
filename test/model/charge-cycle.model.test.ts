import { afterAll, describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import type { ChargePointHardware } from '../../drivers/types.js';
import {
  allowedCurrentA,
  chargeCycleMachine,
  POWER_CUT_DELAY_MS,
  stateMeta,
  type ChargeCycleSnapshot,
  type ChargeEvent,
  type PilotLevel,
} from '../../machines/charge-cycle.js';
import { PHASE_SWITCH_DEFAULTS } from '../../machines/phase-switch.js';
import { HMI_PATTERNS, hmiState } from '../../services/core/hmi.js';
import { READING_DISPLAY_MS } from '../../services/charging.js';
import { KNOWN, OTHER, startCharger, UNKNOWN, type Charger } from '../charging/scenario.js';
import type { ManualClock } from '../clock.js';
import { ChargePointSpec, type ChargeInput, type ChargeObservation } from './invariants/charge-point.js';
import { chosenBreak, CoverageRecorder, planPaths, timerNeverFires, writeReport, type ModelPath } from './model.js';
import { startOcppCharger, until, type OcppCharger } from '../ocpp/support.js';

/**
 * Model-based tests of the charge cycle: shortest paths generated from machines/charge-cycle.ts, chosen to take every
 * transition, each executed on a fresh controller on simulated hardware through /sim and the API. After every step
 * the outside world must match the model: the API's states, contactor, cable lock, PWM, LEDs, buzzer, transactions.
 *
 * MBT_BREAK=<fault> runs the same paths against a deliberately broken device or timer (see BREAKS): the paths that
 * then fail are the suite catching the fault (docs/testing.md, "Model-based tests").
 */

const AUTH_TIMEOUT_MS = 30_000;
const PILOTS: PilotLevel[] = ['a', 'b', 'c', 'd', 'e', 'f'];
const TAG_IDS: Record<string, string> = { K: KNOWN, O: OTHER, U: UNKNOWN };
const LIMITS = [null, 6, 0];

/** The events of the model: bounded variants of every input, so the graph is finite (480 context states). */
function modelEvents(s: ChargeCycleSnapshot): ChargeEvent[] {
  const { context } = s;
  const events: ChargeEvent[] = [
    ...PILOTS.filter((p) => p !== context.pilot).map((level): ChargeEvent => ({ type: 'PILOT', level })),
    { type: 'TAG', id: 'K', known: true, userId: 'user-K' },
    { type: 'TAG', id: 'O', known: true },
    { type: 'TAG', id: 'U', known: false },
    // A user's start without a tag (MQTT `Charge` 1: services/charge-control.ts).
    { type: 'AUTHORIZE', source: 'user' },
    { type: 'SETTINGS', settings: { freeCharging: !context.settings.freeCharging } },
    { type: 'SETTINGS', settings: { chargingEnabled: !context.settings.chargingEnabled } },
    { type: 'SETTINGS', settings: { ventilationAvailable: !context.settings.ventilationAvailable } },
    // Load management: none, exactly the 6 A IEC 61851-1 allows as the least, or 0.
    ...LIMITS.filter((amps) => amps !== context.loadLimitA).map((amps): ChargeEvent => ({ type: 'LOAD_LIMIT', amps })),
    { type: 'FAULT', fault: 'overtemperature', active: !context.faults.includes('overtemperature') },
  ];
  // A stop commanded by the central system (executed as OCPP RemoteStopTransaction).
  if (s.matches({ operative: { session: 'transaction' } })) events.push({ type: 'STOP', reason: 'Remote' });
  // Delayed transitions are model events too; the executor lets the manual clock run for them.
  if (s.matches({ operative: { available: 'authorized' } }))
    events.push({ type: 'xstate.after.authTimeout.chargeCycle.operative.available.authorized' } as never);
  if (s.matches({ operative: { session: { transaction: { underLoad: 'pausing' } } } })) {
    events.push({ type: 'xstate.after.powerCut.chargeCycle.operative.session.transaction.underLoad.pausing' } as never);
    // The 1-/3-phase switch opens the contactor while pausing (executed as a switch to one phase).
    events.push({ type: 'OPEN_CONTACTOR' });
  }
  if (s.matches({ operative: { session: 'stopping' } })) events.push({ type: 'xstate.after.powerCut.chargeCycle.operative.session.stopping' } as never);
  return events;
}

/** The model's tags carry the user of the whitelist entry; the controller knows KNOWN's real user id. */
const serializeState = (s: ChargeCycleSnapshot) =>
  JSON.stringify([s.value, { ...s.context, authorization: s.context.authorization?.tagId ?? s.context.authorization }]);

/** The outcome of the last user's start the executor made (accepted, or refused by services/charge-control.ts). */
let startAccepted: boolean | undefined;

/** Transitions no path can take, with the reason (none: a fault present at start takes the rule any fault takes). */
const UNREACHABLE: Record<string, string> = {};
const { paths, candidates } = planPaths(chargeCycleMachine, { events: modelEvents, input: {}, serializeState, unreachable: UNREACHABLE });

/** Deliberately broken devices and timers (MBT_BREAK), to show the suite catches real faults. */
const BREAKS: Record<string, (hw: ChargePointHardware, clock: ManualClock) => ChargePointHardware> = {
  'contactor-never-opens': (hw) => ({ ...hw, contactor: { ...hw.contactor, set: (closed) => closed && hw.contactor.set(true) } }),
  'lock-never-locks': (hw) => ({ ...hw, cableLock: { ...hw.cableLock, set: () => undefined } }),
  'pwm-stuck-off': (hw) => ({ ...hw, pilot: { ...hw.pilot, setDuty: () => undefined } }),
  'power-cut-timer-never-fires': (hw, clock) => {
    timerNeverFires(clock, POWER_CUT_DELAY_MS);
    return hw;
  },
};
const broken = chosenBreak(BREAKS);

const coverage = new CoverageRecorder();

/** Puts the simulated vehicle and CP faults where the model's level says, all within one debounce window. */
async function setPilot(c: Charger, level: PilotLevel): Promise<void> {
  const plant = (await c.view()).plant;
  const want = level === 'a' ? 'unplugged' : level === 'b' ? 'connected' : level === 'c' || level === 'd' ? 'requesting' : plant.vehicle;
  if (plant.faults.includes('cp-short') && level !== 'e') await c.h.http('DELETE', '/sim/fault/cp-short');
  if (plant.faults.includes('diode-fault') && level !== 'f') await c.h.http('DELETE', '/sim/fault/diode-fault');
  if (level === 'c' || level === 'd') await c.sim('ev', { ventilation: level === 'd' });
  const order = ['unplugged', 'connected', 'requesting'];
  let at = plant.vehicle as string;
  while (at !== want) {
    const up = order.indexOf(want) > order.indexOf(at);
    const next = up ? order[order.indexOf(at) + 1]! : want === 'unplugged' ? 'unplugged' : 'connected';
    await c.sim(up ? (next === 'connected' ? 'plug' : 'charge') : next === 'unplugged' ? 'unplug' : 'pause');
    at = next;
  }
  if (level === 'e' && !plant.faults.includes('cp-short')) await c.sim('fault', { fault: 'cp-short' });
  if (level === 'f' && !plant.faults.includes('diode-fault')) await c.sim('fault', { fault: 'diode-fault' });
  await c.step(50);
}

const SETTING_KEY: Record<string, string> = { freeCharging: 'FreeCharging', chargingEnabled: 'ChargingEnabled', ventilationAvailable: 'Ventilation' };

/** Executes one model event on the controller through its real interfaces. */
async function execute(c: Charger, event: ChargeEvent): Promise<void> {
  const type = event.type as string;
  if (event.type === 'STOP') {
    // The central system stops the transaction it knows by its id (once the StartTransaction is answered).
    const o = c as OcppCharger;
    const id = await until(c, async () => (await c.state()).transaction?.backendTransactionId, 'the backend transaction id');
    expect(await o.csms.call('RemoteStopTransaction', { transactionId: Number(id) })).toEqual({ status: 'Accepted' });
    return c.step(0);
  }
  if (type.startsWith('xstate.after.authTimeout')) return c.step(AUTH_TIMEOUT_MS);
  if (type.startsWith('xstate.after.powerCut')) return c.step(POWER_CUT_DELAY_MS);
  if (event.type === 'OPEN_CONTACTOR') {
    // A switch to one phase: the EV's draw read as none at the next meter poll, the main contactor opens; then the
    // settle time passes, so the switch's own pause is over before the next event.
    c.h.controller.charging.setPhaseSwitch({ wanted: 1 });
    await c.step(1_000);
    return c.step(PHASE_SWITCH_DEFAULTS.settleMs);
  }
  if (event.type === 'AUTHORIZE') {
    // The operation MQTT's `Charge` 1 runs (its transport: test/mqtt/charge-start.test.ts); a refusal is a conflict.
    try {
      c.h.controller.chargeControl.start();
      startAccepted = true;
    } catch (err) {
      expect((err as { kind?: string }).kind).toBe('conflict');
      startAccepted = false;
    }
    return c.step(0);
  }
  switch (event.type) {
    case 'PILOT':
      return setPilot(c, event.level);
    case 'TAG':
      return c.tag(TAG_IDS[event.id]!);
    case 'SETTINGS': {
      const [name, on] = Object.entries(event.settings)[0]!;
      const res = await c.api('PATCH', '/v1/settings', { params: [{ key: SETTING_KEY[name]!, value: on ? 1 : 0 }] });
      expect(res.status).toBe(200);
      return c.step(0);
    }
    case 'LOAD_LIMIT':
      // The core's load limit as the allocator loop sends it (stopped here: its ramp is tested in test/energy/).
      c.h.controller.charging.offerCurrent(event.amps);
      return c.step(0);
    case 'FAULT':
      await c.sim('temperature', { celsius: event.active ? 85 : 70 });
      return c.step(1000); // the next temperature poll
  }
}

/** A model event as the outside world sees it, for the independent oracle (invariants/charge-point.ts). */
function inputOf(event: ChargeEvent): ChargeInput {
  switch (event.type) {
    case 'PILOT':
      return { kind: 'pilot', level: event.level };
    case 'TAG':
      return { kind: 'tag', id: TAG_IDS[event.id]!, whitelisted: event.id !== 'U' };
    case 'SETTINGS': {
      const [name, on] = Object.entries(event.settings)[0]!;
      return { kind: 'setting', name: name === 'ventilationAvailable' ? 'ventilation' : (name as 'freeCharging' | 'chargingEnabled'), on: Boolean(on) };
    }
    case 'LOAD_LIMIT':
      return { kind: 'loadLimit', amps: event.amps };
    case 'FAULT':
      return { kind: 'overtemperature', on: event.active };
    case 'STOP':
      return { kind: 'stop' };
    case 'AUTHORIZE':
      return { kind: 'start' };
    case 'OPEN_CONTACTOR':
      return { kind: 'phaseSwitchOpens' };
    default:
      return { kind: 'wait' };
  }
}

function describePath(path: ModelPath<ChargeEvent>): string {
  return path.steps
    .slice(1)
    .map(({ event }) => {
      const e = event as any;
      if (e.type === 'PILOT') return `CP ${e.level.toUpperCase()}`;
      if (e.type === 'TAG') return `tag ${e.id}`;
      if (e.type === 'SETTINGS') return `${Object.keys(e.settings)[0]}=${String(Object.values(e.settings)[0])}`;
      if (e.type === 'LOAD_LIMIT') return `limit ${e.amps}`;
      if (e.type === 'FAULT') return `overtemp ${e.active ? 'on' : 'off'}`;
      if (e.type === 'STOP') return 'remote stop';
      if (e.type === 'AUTHORIZE') return 'user start';
      if (e.type === 'OPEN_CONTACTOR') return 'phase switch';
      return e.type.split('.')[2];
    })
    .join(' → ');
}

describe(`charge cycle, ${paths.length} generated paths${broken ? ` against broken: ${broken}` : ''}`, () => {
  it.each(paths.map((p) => [describePath(p) || '(initial state)', p] as const))('%s', async (_name, path) => {
    // Paths with a commanded stop run connected to a central system (which knows no tag but the whitelist's).
    const central = path.steps.some((step) => step.event.type === 'STOP');
    // Paths with a phase switch run with a phase contactor (GPIO_PHASE_SWITCH: the simulated one).
    const phaseSwitch = path.steps.some((step) => step.event.type === 'OPEN_CONTACTOR');
    const options = {
      inspect: coverage.inspect,
      ...(phaseSwitch ? { env: { GPIO_PHASE_SWITCH: '16' } } : {}),
      ...(broken ? { chargePoint: BREAKS[broken] } : {}),
    };
    let c: Charger;
    if (central) {
      const o = await startOcppCharger({ charger: options });
      o.csms.answer('Authorize', () => ({ idTagInfo: { status: 'Invalid' } }));
      await o.online();
      c = o;
    } else c = await startCharger(options);
    c.h.controller.energy.stop();
    try {
      let model = path.steps[0]!.state as ChargeCycleSnapshot;
      let readingUntil = Number.NEGATIVE_INFINITY;
      let beeps = await c.beeps();
      let completed = 0;
      startAccepted = undefined;
      const spec = new ChargePointSpec({ maxCurrentA: 16, authTimeoutMs: AUTH_TIMEOUT_MS });
      /** What the oracle sees after a step: the plant, the running and completed transactions, the beeps of the step. */
      const observe = async (): Promise<ChargeObservation> => {
        const { plant } = await c.view();
        const { transaction } = await c.state();
        const done = (await c.api('GET', '/v1/transactions')).json as { consumption: number; tagId?: string }[];
        const sounded = plant.beeps - beeps;
        const kind = plant.lastBeep?.ms === 150 ? 'accept' : 'refuse';
        return {
          at: c.h.clock.now(),
          contactorClosed: plant.contactorClosed,
          cableLocked: plant.cableLocked,
          pwmA: plant.pwmCurrentA,
          meterWh: plant.energyWh,
          transaction: transaction ? { consumption: transaction.consumption, ...(transaction.tagId ? { tagId: transaction.tagId } : {}) } : null,
          completed: done.map((t) => ({ consumption: t.consumption, ...(t.tagId ? { tagId: t.tagId } : {}) })),
          feedback: Array.from({ length: sounded }, () => kind),
          ...(startAccepted !== undefined ? { startAccepted } : {}),
        };
      };
      const check = async (label: string) => {
        const meta = stateMeta(model);
        const state = await c.state();
        const { plant, hmi } = await c.view();
        const contactor = model.hasTag('contactor');
        expect({ at: label, systemState: state.systemState, authState: state.authState, ocppState: state.ocppState, type2State: state.type2State }).toEqual({
          at: label,
          ...meta,
          type2State: model.context.pilot === 'f' ? 'e' : model.context.pilot,
        });
        expect({ at: label, contactor: plant.contactorClosed, locked: plant.cableLocked, pwmA: plant.pwmCurrentA }).toEqual({
          at: label,
          contactor,
          locked: model.hasTag('locked') || contactor,
          pwmA: model.hasTag('pwm') ? allowedCurrentA(model.context) : null,
        });
        const expectedHmi = c.h.clock.now() < readingUntil ? 'Reading card' : hmiState(meta, false);
        expect({ at: label, hmi, leds: plant.leds }).toEqual({ at: label, hmi: expectedHmi, leds: HMI_PATTERNS[expectedHmi] });
        expect({ at: label, transaction: state.transaction !== undefined }).toEqual({
          at: label,
          transaction: model.matches({ operative: { session: 'transaction' } }),
        });
        expect({ at: label, completed: (await c.api('GET', '/v1/transactions')).json.length }).toEqual({ at: label, completed });
      };
      expect({ at: 'start', broken: spec.start(await observe()) }).toEqual({ at: 'start', broken: [] });
      await check('start');
      for (const [i, step] of path.steps.slice(1).entries()) {
        const [next, actions] = transition(chargeCycleMachine, model, step.event);
        const from = c.h.clock.now();
        startAccepted = undefined;
        await execute(c, step.event);
        const label = `step ${i + 1}: ${JSON.stringify(step.event)}`;
        expect({ at: label, broken: spec.step(inputOf(step.event), from, await observe()) }).toEqual({ at: label, broken: [] });
        if (step.event.type === 'TAG') readingUntil = c.h.clock.now() + READING_DISPLAY_MS;
        model = next;
        const types = actions.map((a) => a.type);
        const feedback = types.filter((t) => t === 'acceptTag' || t === 'refuseTag');
        completed += types.filter((t) => t === 'stopTransaction').length;
        const plant = (await c.view()).plant;
        expect({ at: label, beeps: plant.beeps - beeps }).toEqual({ at: label, beeps: feedback.length });
        if (feedback.length)
          expect({ at: label, beep: plant.lastBeep }).toEqual({ at: label, beep: { count: 1, ms: feedback.at(-1) === 'acceptTag' ? 150 : 800 } });
        beeps = plant.beeps;
        await check(label);
      }
    } finally {
      await c.h.stop();
      if (central) await (c as OcppCharger).csms.close();
    }
  });
});

/** Clock time the executor gives each event (the CP debounce step, a temperature poll, the timers). */
function durationOf(event: ChargeEvent): number {
  const type = event.type as string;
  if (type.startsWith('xstate.after.authTimeout')) return AUTH_TIMEOUT_MS;
  if (type.startsWith('xstate.after.powerCut')) return POWER_CUT_DELAY_MS;
  if (event.type === 'OPEN_CONTACTOR') return 1_000 + PHASE_SWITCH_DEFAULTS.settleMs;
  return event.type === 'PILOT' ? 50 : event.type === 'FAULT' ? 1000 : 0;
}

/**
 * The same oracle over every candidate path (each reachable state and context, then each event possible there) on
 * the machine alone: the outputs as the core drives them from the state tags (services/core/outputs.ts: the
 * cable locked also whenever the contactor is closed; PWM announcing the allowed current), the transactions and the
 * feedback from the effects the machine names. Far more paths than the controller can run, in a second.
 */
describe(`charge cycle alone against the oracle, ${candidates.length} paths`, () => {
  it('breaks no invariant', () => {
    const failures: string[] = [];
    for (const path of candidates) {
      let model = path.steps[0]!.state as ChargeCycleSnapshot;
      let at = 0;
      let tx: { tagId?: string } | null = null;
      const completed: { consumption: number; tagId?: string }[] = [];
      const observe = (feedback: ('accept' | 'refuse')[], started?: boolean): ChargeObservation => {
        const contactor = model.hasTag('contactor');
        return {
          ...(started !== undefined ? { startAccepted: started } : {}),
          at,
          contactorClosed: contactor,
          cableLocked: model.hasTag('locked') || contactor,
          pwmA: model.hasTag('pwm') ? allowedCurrentA(model.context) : null,
          meterWh: 0,
          transaction: tx ? { consumption: 0, ...tx } : null,
          completed: [...completed],
          feedback,
        };
      };
      const spec = new ChargePointSpec({ maxCurrentA: 16, authTimeoutMs: AUTH_TIMEOUT_MS });
      const broken = [spec.start(observe([]))];
      for (const step of path.steps.slice(1)) {
        const [next, actions] = transition(chargeCycleMachine, model, step.event);
        // A user's start is taken where the machine takes it (services/charge-control.ts refuses the rest).
        const started = step.event.type === 'AUTHORIZE' ? model.can(step.event) : undefined;
        const from = at;
        at += durationOf(step.event);
        model = next;
        const feedback: ('accept' | 'refuse')[] = [];
        for (const action of actions) {
          const params = action.params as { tagId?: string } | undefined;
          if (action.type === 'stopTransaction' && tx) {
            completed.push({ consumption: 0, ...tx });
            tx = null;
          }
          if (action.type === 'startTransaction') tx = params?.tagId !== undefined ? { tagId: TAG_IDS[params.tagId]! } : {};
          if (action.type === 'acceptTag') feedback.push('accept');
          if (action.type === 'refuseTag') feedback.push('refuse');
        }
        broken.push(spec.step(inputOf(step.event), from, observe(feedback, started)));
      }
      if (broken.some((b) => b.length > 0))
        failures.push(
          `${describePath(path)}: ${broken
            .map((b, i) => b.map((r) => `step ${i}: ${r}`))
            .flat()
            .join('; ')}`,
        );
    }
    expect(failures.slice(0, 5), `${failures.length} of ${candidates.length} paths break an invariant`).toEqual([]);
  });
});

afterAll(() => {
  if (broken) return;
  const report = coverage.report('chargeCycle', chargeCycleMachine, paths.length, UNREACHABLE);
  writeReport(report);
  expect(report.states.missing, 'charge-cycle states no path reached').toEqual([]);
  expect(report.transitions.missing, 'charge-cycle transitions no path took').toEqual([]);
});
