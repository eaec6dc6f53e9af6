// `npm run mutation [-- <target>…] [--concurrency N] [--incremental] [--force] [--lines <from>-<to>]`: Stryker over each target file with the tests
// that exercise it (TARGETS below), one Stryker run per target, then one merged report in test-results/mutation/
// (mutation.json, index.html, summary.json) and a score table. Without targets: every target, the charge cycle last.
// A target may be named by its path or by a part of it (`frame`, `charge-cycle`). See docs/testing.md.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const out = join(root, 'test-results', 'mutation');

/** The tests every target runs first: each module under mutation imported inside a test (stryker-js issue 6150). */
const LOAD = 'test/machines/load.test.ts';

/**
 * The tests of the charge-point core's files. Not the charge-cycle model test: it exercises these files too, but every
 * mutant here is reached by every test (the poll loop, the outputs), so it would run for each survivor; left out to
 * keep a run near 30 min (docs/mutation-testing.md).
 */
const CHARGE_POINT_TESTS = [
  LOAD,
  'test/charging/metering.test.ts',
  'test/core/metrics.test.ts',
  'test/core/charge-point.test.ts',
  'test/core/charge-point-edges.test.ts',
  'test/api/events.test.ts',
  'test/charging/pairing.test.ts',
  'test/charging/cycle.test.ts',
  'test/charging/clock-jump.test.ts',
];

/** Each target and the test files that exercise it, fastest first (run.mjs runs them in this order). */
export const TARGETS = {
  'machines/pairing.ts': [LOAD, 'test/model/pairing.model.test.ts', 'test/charging/pairing.test.ts'],
  'machines/secrets.ts': [
    LOAD,
    'test/machines/secrets.test.ts',
    'test/machines/secrets-edges.test.ts',
    'test/machines/session.test.ts',
    'test/api/login.test.ts',
  ],
  'machines/session.ts': [LOAD, 'test/machines/session.test.ts', 'test/api/login.test.ts', 'test/model/session.model.test.ts'],
  'machines/type4-tag.ts': [
    LOAD,
    'test/machines/type4-tag.test.ts',
    'test/machines/type4-tag-edges.test.ts',
    'test/nfc/link.test.ts',
    'test/model/nfc-link.model.test.ts',
  ],
  'machines/nfc-link.ts': [LOAD, 'test/nfc/link.test.ts', 'test/nfc/link-edges.test.ts', 'test/nfc/api.test.ts', 'test/model/nfc-link.model.test.ts'],
  'machines/transitions.ts': [LOAD, 'test/machines/transitions.test.ts', 'test/docs.test.ts', 'test/charts.test.ts', 'test/model/pairing.model.test.ts'],
  'machines/backoff.ts': [LOAD, 'test/machines/link-backoff.test.ts', 'test/model/backend-link.model.test.ts', 'test/model/mqtt.model.test.ts'],
  'machines/backend-link.ts': [
    LOAD,
    'test/machines/link-backoff.test.ts',
    'test/machines/backend-link.test.ts',
    'test/ocpp/heartbeat-setting.test.ts',
    'test/model/backend-link.model.test.ts',
    'test/ocpp/core-profile.test.ts',
  ],
  'machines/mqtt.ts': [LOAD, 'test/machines/link-backoff.test.ts', 'test/machines/mqtt.test.ts', 'test/model/mqtt.model.test.ts', 'test/mqtt/mqtt.test.ts'],
  'machines/core.ts': [LOAD, 'test/charging/cycle.test.ts'],
  'machines/main-thread.ts': [LOAD, 'test/charging/pairing.test.ts', 'test/nfc/api.test.ts', 'test/ocpp/heartbeat-setting.test.ts'],
  'drivers/pn532/frame.ts': [LOAD, 'test/nfc/frame.test.ts', 'test/nfc/frame-edges.test.ts', 'test/nfc/chip.test.ts', 'test/nfc/driver.test.ts'],
  'drivers/nfc/ndef.ts': [LOAD, 'test/nfc/ndef.test.ts', 'test/nfc/api.test.ts'],
  'services/core/liveness.ts': [LOAD, 'test/core/liveness.test.ts'],
  'services/core/safety.ts': [LOAD, 'test/core/safety.test.ts', 'test/core/metrics.test.ts'],
  // The charge-point core, one target per file (charge-point.ts assembles the other four), each with the same tests.
  'services/core/outputs.ts': CHARGE_POINT_TESTS,
  'services/core/supervision.ts': CHARGE_POINT_TESTS,
  'services/core/metering.ts': CHARGE_POINT_TESTS,
  'services/core/state-view.ts': CHARGE_POINT_TESTS,
  // The assembly also wires the grid inputs and the phase switch (the EV's draw from the charging meter).
  'services/core/charge-point.ts': [...CHARGE_POINT_TESTS, 'test/energy/core-inputs.test.ts', 'test/core/phase-switch.test.ts'],
  // 1-/3-phase switching: the machine and the core's part (its interlock), with the oracle's tests on the controller.
  'machines/phase-switch.ts': [LOAD, 'test/machines/phase-switch.test.ts', 'test/model/phase-switch.model.test.ts', 'test/core/phase-switch.test.ts'],
  'services/core/phase-switching.ts': [LOAD, 'test/core/phase-switching.test.ts', 'test/core/phase-switch.test.ts'],
  'machines/charge-cycle.ts': [
    LOAD,
    'test/machines/charge-cycle.test.ts',
    'test/machines/charge-cycle-priority.test.ts',
    'test/machines/charge-cycle-rules.test.ts',
    'test/charging/cycle.test.ts',
    'test/model/charge-cycle.model.test.ts',
  ],
};

const args = process.argv.slice(2);
const option = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [, value] = args.splice(i, 2);
  return value;
};
const flag = (name) => {
  const i = args.indexOf(name);
  if (i >= 0) args.splice(i, 1);
  return i >= 0;
};
const incremental = flag('--incremental');
// Retests every mutant in scope, also those the incremental state would keep. Needed for a static mutant (one reached
// while a module loads: a constant) after a test was added for it: its coverage is not per test, so Stryker's
// incremental mode does not see the new test as covering it.
const force = flag('--force');
// Only the mutants on these lines of the (one) target, e.g. `--lines 150-166` or `--lines 12-14,80-80`; with
// --incremental the others keep their last result.
const lines = option('--lines');
const concurrency = option('--concurrency') ?? process.env.MUTATION_CONCURRENCY ?? '2';
const unknown = args.find((a) => a.startsWith('--'));
if (unknown) {
  console.error(`unknown option ${unknown}: npm run mutation -- [target…] [--concurrency N] [--incremental] [--force] [--lines <from>-<to>]`);
  process.exit(2);
}
const targets =
  args.length === 0
    ? Object.keys(TARGETS)
    : args.map((a) => {
        const found = Object.keys(TARGETS).filter((t) => t === a || t.includes(a));
        if (found.length !== 1) {
          console.error(
            `${JSON.stringify(a)} names ${found.length ? `several targets: ${found.join(', ')}` : 'no target'}; targets: ${Object.keys(TARGETS).join(', ')}`,
          );
          process.exit(2);
        }
        return found[0];
      });

if (lines && (targets.length !== 1 || !/^\d+-\d+(,\d+-\d+)*$/.test(lines))) {
  console.error('--lines <from>-<to> applies to exactly one target');
  process.exit(2);
}

const missing = targets.flatMap((t) => TARGETS[t].filter((f) => !existsSync(join(root, f))));
if (missing.length) {
  console.error(`test files named in TARGETS do not exist: ${missing.join(', ')}`);
  process.exit(2);
}

const nameOf = (target) => target.replace(/\.ts$/, '').replaceAll('/', '-');

function runStryker(target) {
  const env = { ...process.env, MUTATION_TARGET: target, MUTATION_TESTS: TARGETS[target].join(','), MUTATION_CONCURRENCY: concurrency };
  const cli = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
  const argv = [cli, 'run', 'test/mutation/stryker.config.mjs', ...(incremental ? ['--incremental'] : []), ...(force ? ['--force'] : [])];
  if (lines)
    argv.push(
      '--mutate',
      lines
        .split(',')
        .map((range) => `${target}:${range}`)
        .join(','),
    );
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: root, env, stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** Score of one file's mutants as Stryker counts it: detected / valid (compile and runtime errors and ignored left out). */
function count(mutants) {
  const by = (s) => mutants.filter((m) => m.status === s).length;
  const killed = by('Killed');
  const timeout = by('Timeout');
  const survived = by('Survived');
  const noCoverage = by('NoCoverage');
  const valid = killed + timeout + survived + noCoverage;
  return {
    score: valid ? Math.round((10000 * (killed + timeout)) / valid) / 100 : 100,
    killed,
    timeout,
    survived,
    noCoverage,
    ignored: by('Ignored'),
    compileErrors: by('CompileError'),
    runtimeErrors: by('RuntimeError'),
  };
}

const summaryFile = join(out, 'summary.json');
const summary = existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : {};
let failed = false;
for (const target of targets) {
  const started = Date.now();
  console.log(`\n=== mutation: ${target} (tests: ${TARGETS[target].join(', ')}; concurrency ${concurrency}${incremental ? ', incremental' : ''})`);
  const code = await runStryker(target);
  const seconds = Math.round((Date.now() - started) / 1000);
  if (code !== 0) {
    console.error(`Stryker failed on ${target} (exit code ${code})`);
    failed = true;
    continue;
  }
  const report = JSON.parse(readFileSync(join(out, nameOf(target), 'mutation.json'), 'utf8'));
  summary[target] = {
    ...count(report.files[target]?.mutants ?? []),
    seconds,
    concurrency: Number(concurrency),
    incremental,
    ...(force ? { force } : {}),
    ...(lines ? { lines } : {}),
    at: new Date().toISOString(),
  };
  mkdirSync(out, { recursive: true });
  writeFileSync(summaryFile, `${JSON.stringify(summary, null, 2)}\n`);
}

// One report of every target run so far (each target's latest run).
const merged = { schemaVersion: '2', thresholds: { high: 95, low: 80, break: null }, projectRoot: root, files: {}, testFiles: {} };
for (const target of Object.keys(TARGETS)) {
  const file = join(out, nameOf(target), 'mutation.json');
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  Object.assign(merged.files, report.files);
  for (const [path, tf] of Object.entries(report.testFiles ?? {})) {
    const known = (merged.testFiles[path] ??= { ...tf, tests: [] });
    for (const t of tf.tests) if (!known.tests.some((k) => k.id === t.id)) known.tests.push(t);
  }
}
writeFileSync(join(out, 'mutation.json'), JSON.stringify(merged));
const elements = createRequire(createRequire(import.meta.url).resolve('@stryker-mutator/core')).resolve(
  'mutation-testing-elements/dist/mutation-test-elements.js',
);
writeFileSync(
  join(out, 'index.html'),
  `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Mutation testing</title><script>${readFileSync(elements, 'utf8')}</script></head>\n` +
    '<body><mutation-test-report-app titlePostfix="charge controller"></mutation-test-report-app>\n' +
    `<script>document.querySelector('mutation-test-report-app').report = ${JSON.stringify(merged).replace(/</g, '\\u003c')};</script></body></html>\n`,
);

console.log('\nfile | score | killed | timeout | survived | no coverage | compile errors | run time');
console.log('---|---|---|---|---|---|---|---');
for (const [target, s] of Object.entries(summary)) {
  const time = s.seconds >= 60 ? `${Math.floor(s.seconds / 60)} min ${s.seconds % 60} s` : `${s.seconds} s`;
  console.log(
    `${target} | ${s.score.toFixed(2)} % | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.compileErrors} | ` +
      `${time} (concurrency ${s.concurrency})`,
  );
}
console.log(`\nreport: ${join('test-results', 'mutation', 'index.html')} (JSON: mutation.json, scores: summary.json)`);
process.exit(failed ? 1 : 0);
