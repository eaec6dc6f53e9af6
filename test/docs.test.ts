import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { GUARD_DESCRIPTIONS } from '../machines/charge-cycle.js';
import { chargeCycleMachine } from '../machines/charge-cycle.js';
import { transitionTable } from '../machines/transitions.js';
import { renderMachineDocs } from '../bin/dev/machine-docs.js';
import { renderSettingsDocs } from '../services/settings/docs.js';

test('docs/charge-cycle.md is the table generated from the machines (run `npm run docs` after changing them)', () => {
  const file = readFileSync(join(import.meta.dirname, '..', 'docs', 'charge-cycle.md'), 'utf8');
  expect(file).toBe(renderMachineDocs());
});

test('every guard of the charge cycle is described in the generated docs', () => {
  const used = new Set(transitionTable(chargeCycleMachine).flatMap((r) => (r.guard ? [r.guard.replace(/^not\((.*)\)$/, '$1')] : [])));
  expect([...used].filter((g) => !(g in GUARD_DESCRIPTIONS))).toEqual([]);
});

test('docs/settings.md is the table generated from the settings catalogue (run `npm run docs` after changing it)', () => {
  const file = readFileSync(join(import.meta.dirname, '..', 'docs', 'settings.md'), 'utf8');
  expect(file).toBe(renderSettingsDocs());
});
