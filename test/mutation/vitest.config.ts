import { resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import base from '../../vitest.config.js';

/**
 * The vitest configuration of a mutation run (test/mutation/run.mjs): the test files of one target, listed in
 * MUTATION_TESTS (comma-separated) fastest first, and run in that order, so that a mutant is killed by the quick
 * tests before the model-based ones start (Stryker stops a mutant's run at its first failing test).
 */
const tests = (process.env.MUTATION_TESTS ?? '').split(',').filter(Boolean);
if (tests.length === 0) throw new Error('MUTATION_TESTS names no test file (run `npm run mutation`)');
const order = tests.map((t) => resolve(t));

class ListedOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = order.indexOf(f.moduleId);
      return i < 0 ? order.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    ...base.test,
    include: tests,
    sequence: { sequencer: ListedOrder },
  },
});
