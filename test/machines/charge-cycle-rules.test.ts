import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { chargeCycleMachine, GUARD_DESCRIPTIONS, stateMeta, type Authorization, type ChargeCycleSnapshot } from '../../machines/charge-cycle.js';
import { transitionTable } from '../../machines/transitions.js';

/**
 * Rules of the charge cycle that the scenario and model-based tests do not single out (each found by mutation testing,
 * docs/mutation-testing.md): tests here check the behaviour a surviving mutant changed.
 */
describe('charge cycle rules', () => {
  it('every guard of the machine has a description for the generated transition table, a sentence each', () => {
    const used = new Set(transitionTable(chargeCycleMachine).flatMap((r) => (r.guard ? [r.guard.replace(/^not\((.*)\)$/, '$1')] : [])));
    expect(used.size).toBeGreaterThan(10);
    for (const guard of used) expect(GUARD_DESCRIPTIONS[guard], guard).toMatch(/^[a-z].{8,}/i);
  });

  it('a whitelisted tag without a user authorizes with its id alone (no userId key in the transaction start)', () => {
    const started: Authorization[] = [];
    const actor = createActor(chargeCycleMachine.provide({ actions: { startTransaction: (_, p: Authorization) => started.push(p) } }), {
      input: { pilot: 'b' },
    });
    actor.start();
    actor.send({ type: 'TAG', id: 'AA', known: true });
    actor.send({ type: 'PILOT', level: 'a' });
    actor.send({ type: 'PILOT', level: 'b' });
    actor.send({ type: 'TAG', id: 'BB', known: true, userId: 'u1' });
    expect(started).toStrictEqual([{ tagId: 'AA' }, { tagId: 'BB', userId: 'u1' }]);
  });

  it('a snapshot without a state meta is an error that names the state', () => {
    const snapshot = { value: { operative: 'nowhere' }, getMeta: () => ({}) } as unknown as ChargeCycleSnapshot;
    expect(() => stateMeta(snapshot)).toThrow('charge cycle state {"operative":"nowhere"} has no meta');
  });
});
