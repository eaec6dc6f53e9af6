import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';

/**
 * The dependency rules (.dependency-cruiser.cjs, run on the sources by `npm test` before the tests) can fail: on a
 * fixture tree whose every file breaks one rule on purpose (test/fixtures/layers, outside the checked folders and
 * the build), the check exits non-zero and names each broken rule.
 */

const ROOT = join(import.meta.dirname, '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'layers');
const CLI = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

test('the dependency check fails on a wrong import and names the rule', () => {
  // The same command as `npm run deps` (the output `npm test` shows), on the fixture.
  const run = spawnSync(
    process.execPath,
    [CLI, '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'err', 'bin', 'api', 'services', 'machines', 'drivers', 'db'],
    {
      cwd: FIXTURE,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  expect(run.status, run.stderr).not.toBe(0);
  const text = run.stdout.replace(/ →\s*\n\s*/g, ' → ');
  const found = [...text.matchAll(/error ([\w-]+): (.+)/g)].map((m) => `${m[1]}: ${m[2]!.trim()}`);
  expect(found.filter((v) => !v.startsWith('no-circular')).sort()).toEqual(
    [
      'api-no-drivers: api/route.ts → drivers/relay.ts',
      'api-not-up: api/route.ts → bin/start.ts',
      'core-boundary: services/core/loop.ts → db/table.ts',
      'core-boundary: services/core/loop.ts → services/clock.ts',
      'db-bottom: db/table.ts → machines/tag.ts',
      'dev-tools-apart: services/runtime.ts → bin/dev/bench.ts',
      'drivers-bottom: drivers/relay.ts → services/clock.ts',
      'machines-pure: machines/cycle.ts → drivers/relay.ts',
      'services-not-up: services/clock.ts → api/route.ts',
      'services-not-up: services/clock.ts → bin/start.ts',
      'services-not-up: services/runtime.ts → bin/dev/bench.ts',
    ].sort(),
  );
  // A circle made of type-only imports counts too (machines/cycle.ts ⇄ machines/tag.ts).
  expect(found).toContain('no-circular: machines/cycle.ts → machines/tag.ts → machines/cycle.ts');
  // The composition root may import every layer: bin/start.ts breaks no layer rule.
  expect(found.filter((v) => !v.startsWith('no-circular') && v.includes(': bin/'))).toEqual([]);
});
