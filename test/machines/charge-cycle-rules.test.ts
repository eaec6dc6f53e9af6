import { describe, expect, it } from 'vitest';
import { chargeCycleMachine, GUARD_DESCRIPTIONS } from '../../machines/charge-cycle.js';
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
});
