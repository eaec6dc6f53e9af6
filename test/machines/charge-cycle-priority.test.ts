import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, type AnyStateNode, type InspectionEvent } from 'xstate';
import {
  BLOCKING_FAULTS,
  chargeCycleMachine,
  FLOW_GUARDS,
  operable,
  pilotFault,
  stateMeta,
  type ChargeContext,
  type ChargeEvent,
  type ChargeInput,
  type PilotLevel,
} from '../../machines/charge-cycle.js';
import { describeGuard, statePath } from '../../machines/transitions.js';
import { ManualClock } from '../clock.js';

/**
 * The safety priority of the charge cycle, which follows from its structure (machines/charge-cycle.ts): a fault or
 * disabling is acted on before anything else, and a fault never lets the contactor close or a transaction start in
 * the step that found it. Checked on every microstep of random event sequences, settings changes of several keys at
 * once included (a settings write may carry many).
 */

const PILOTS: PilotLevel[] = ['a', 'b', 'c', 'd', 'e', 'f'];

const input = fc.record({
  pilot: fc.constantFrom(...PILOTS),
  settings: fc.record({ freeCharging: fc.boolean(), chargingEnabled: fc.boolean(), ventilationAvailable: fc.boolean() }),
});

/** Every input of the charge cycle; SETTINGS with any subset of the keys that matter at once. */
const inputEvent: fc.Arbitrary<ChargeEvent> = fc.oneof(
  fc.constantFrom(...PILOTS).map((level): ChargeEvent => ({ type: 'PILOT', level })),
  fc
    .record(
      { freeCharging: fc.boolean(), chargingEnabled: fc.boolean(), ventilationAvailable: fc.boolean(), maxCurrentA: fc.constantFrom(4, 16) },
      { requiredKeys: [] },
    )
    .map((settings): ChargeEvent => ({ type: 'SETTINGS', settings })),
  fc.constantFrom(0, 10, null).map((amps): ChargeEvent => ({ type: 'LOAD_LIMIT', amps })),
  fc.record({ fault: fc.constantFrom(...BLOCKING_FAULTS), active: fc.boolean() }).map((f): ChargeEvent => ({ type: 'FAULT', ...f })),
);
type Step = ChargeEvent | { type: 'TIME'; ms: number };
const step: fc.Arbitrary<Step> = fc.oneof(
  inputEvent,
  fc.constantFrom('K', 'O', 'U').map((id): Step => ({ type: 'TAG', id, known: id !== 'U' })),
  fc.constantFrom(1_000, 6_000, 30_000).map((ms): Step => ({ type: 'TIME', ms })),
);

interface Microstep {
  event: string;
  transitions: Array<{ source: string; guard: string; targets: string[] }>;
  contactor: boolean;
  states: string[];
}

function start(chargeInput: ChargeInput) {
  const clock = new ManualClock();
  const started: number[] = [];
  let microsteps: Microstep[] = [];
  const inspect = (e: InspectionEvent) => {
    if (e.type !== '@xstate.microstep') return;
    const snapshot = e.snapshot as ReturnType<typeof actor.getSnapshot>;
    microsteps.push({
      event: e.event.type,
      transitions: (e as unknown as { _transitions: Array<{ source: AnyStateNode; guard?: unknown; target?: AnyStateNode[] }> })._transitions.map((t) => ({
        source: statePath(t.source),
        guard: describeGuard(t.guard),
        targets: (t.target ?? []).map(statePath),
      })),
      contactor: snapshot.hasTag('contactor'),
      states: snapshot._nodes.filter((n) => Object.keys(n.states).length === 0).map(statePath),
    });
  };
  const machine = chargeCycleMachine.provide({ actions: { startTransaction: () => void started.push(microsteps.length) } });
  const actor = createActor(machine, { clock, input: chargeInput, inspect });
  actor.start();
  return {
    actor,
    clock,
    started,
    /** Sends one event; the microsteps of its step. */
    send(event: ChargeEvent) {
      microsteps = [];
      started.length = 0;
      actor.send(event);
      return microsteps;
    },
  };
}

const inTransaction = (states: string[]) => states.some((s) => s.startsWith('operative.session.transaction.'));

describe('charge cycle: faults and disabling come first, in every state', () => {
  it('every flow guard is false while a fault or disabling is present', () => {
    const guards = chargeCycleMachine.implementations.guards as Record<string, (args: { context: ChargeContext; event: ChargeEvent }) => boolean>;
    fc.assert(
      fc.property(
        fc.record({
          pilot: fc.constantFrom(...PILOTS),
          settings: fc.record({
            freeCharging: fc.boolean(),
            chargingEnabled: fc.boolean(),
            ventilationAvailable: fc.boolean(),
            authTimeoutMs: fc.constant(30_000),
            maxCurrentA: fc.constantFrom(4, 16),
          }),
          loadLimitA: fc.constantFrom(0, 10, null),
          faults: fc.subarray([...BLOCKING_FAULTS]),
          authorization: fc.constantFrom(null, {}, { tagId: 'K' }),
        }),
        (context: ChargeContext) => {
          if (operable(context)) return;
          for (const name of FLOW_GUARDS) expect(guards[name]!({ context, event: { type: 'LOAD_LIMIT', amps: null } }), name).toBe(false);
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('an input that brings a fault or disabling: only fault and disabling rules are taken, the contactor never closes, no transaction starts', () => {
    fc.assert(
      fc.property(input, fc.array(step, { maxLength: 20 }), inputEvent, (chargeInput, prefix, event) => {
        const m = start(chargeInput);
        for (const s of prefix) {
          if (s.type === 'TIME') m.clock.increment(s.ms);
          else m.send(s);
        }
        const before = m.actor.getSnapshot();
        const wasInTransaction = inTransaction(before._nodes.map(statePath));
        const steps = m.send(event);
        const after = m.actor.getSnapshot();
        if (operable(after.context)) return;

        // The event's own microstep only updates the context (the root's rule); every later one is a fault or
        // disabling rule (or suspended holding), never a rule of the flow.
        expect(steps[0]!.transitions.map((t) => t.source)).toEqual(['(root)']);
        for (const s of steps.slice(1)) {
          for (const t of s.transitions) expect(FLOW_GUARDS as readonly string[], JSON.stringify(t)).not.toContain(t.guard);
          expect(s.contactor, 'contactor closed in the step that found a fault').toBe(false);
        }
        expect(m.started, 'a transaction started').toEqual([]);

        // And the step ends where the rules say: a fault wins over disabling; a recoverable fault holds a running
        // transaction (suspended), any other fault ends it (faulted).
        const c = after.context;
        const blocked = pilotFault(c) !== null || c.faults.length > 0;
        const unsafe = c.pilot === 'e' || c.pilot === 'f' || c.faults.some((f) => f !== 'overtemperature');
        const suspends = wasInTransaction && blocked && !unsafe && c.settings.chargingEnabled && c.pilot !== 'a';
        const { ocppState } = stateMeta(after);
        expect(ocppState).toBe(!blocked ? 'unavailable' : suspends ? 'suspendedevse' : 'faulted');
        expect(after.hasTag('contactor') || after.hasTag('pwm')).toBe(false);
      }),
      { numRuns: 3_000 },
    );
  });

  it('suspended holds a transaction while its fault lasts: a step there ends after its own rule, whatever arrives', () => {
    const m = start({ pilot: 'c', settings: { freeCharging: true } });
    m.send({ type: 'FAULT', fault: 'overtemperature', active: true });
    expect(m.actor.getSnapshot().matches({ operative: { session: { transaction: 'suspended' } } })).toBe(true);
    for (const event of [
      { type: 'PILOT', level: 'b' },
      { type: 'LOAD_LIMIT', amps: 0 },
      { type: 'SETTINGS', settings: { maxCurrentA: 10 } },
    ] as ChargeEvent[]) {
      const steps = m.send(event);
      expect(steps.map((s) => s.transitions.map((t) => `${t.source} [${t.guard}]`))).toEqual([
        ['(root) []'],
        ['operative.session.transaction.suspended [suspends]'],
      ]);
    }
    // An unsafe fault while suspended ends the transaction: the enclosing rule is reached once suspended's no longer holds.
    const steps = m.send({ type: 'PILOT', level: 'e' });
    const taken = steps.slice(1).map((s) => s.transitions.map((t) => `${t.source} [${t.guard}] → ${t.targets.join(',')}`));
    expect(taken).toEqual([['operative [blocked] → faulted']]);
  });
});
