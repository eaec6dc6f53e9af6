// @ts-check
/**
 * Stryker's configuration for one target (test/mutation/run.mjs sets MUTATION_TARGET and MUTATION_TESTS and runs
 * Stryker once per target). Reports go to test-results/mutation/<target>/.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const target = process.env.MUTATION_TARGET ?? '';
const name = target.replace(/\.ts$/, '').replaceAll('/', '-');
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'test/mutation/vitest.config.ts', related: false },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  coverageAnalysis: 'perTest',
  mutate: target ? [target] : [],
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 2),
  reporters: ['html', 'json', 'clear-text', 'progress-append-only'],
  htmlReporter: { fileName: `test-results/mutation/${name}/index.html` },
  jsonReporter: { fileName: `test-results/mutation/${name}/mutation.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: true, reportScoreTable: true },
  incrementalFile: `test-results/mutation/${name}/incremental.json`,
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'data', 'test-results', 'docs/screenshots', '.stryker-tmp', 'test/browser'],
  cleanTempDir: true,
  timeoutMS: 10_000,
};
