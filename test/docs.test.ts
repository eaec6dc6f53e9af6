import { existsSync, readFileSync } from 'node:fs';
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

/** The fenced block under a heading of a Markdown file. */
function pictureUnder(file: string, heading: string): string {
  const text = readFileSync(join(import.meta.dirname, '..', file), 'utf8');
  const at = text.indexOf(`${heading}\n`);
  expect(at, `${file} has ${heading}`).toBeGreaterThanOrEqual(0);
  return text.slice(text.indexOf('```\n', at) + 4, text.indexOf('\n```', text.indexOf('```\n', at) + 4));
}

test("the architecture picture is one: the README's is docs/architecture.md's, and every path it names exists", () => {
  const picture = pictureUnder('docs/architecture.md', '## Architecture');
  expect(picture).toContain('services/');
  expect(pictureUnder('README.md', '## Architecture in one screen')).toBe(picture);
  // Each line's folder (`services/`, `  core/` under the line above it) and the files named after it.
  let parent = '';
  for (const line of picture.split('\n')) {
    const folder = /^( *)([a-z-]+\/)/.exec(line);
    if (!folder) continue;
    const dir = folder[1] ? parent + folder[2] : folder[2]!;
    if (!folder[1]) parent = dir;
    expect(existsSync(join(import.meta.dirname, '..', dir)), dir).toBe(true);
  }
  for (const [, file] of picture.matchAll(/([a-z/-]+\.ts)/g)) {
    const found = ['', 'bin/', 'api/', 'services/', 'services/core/', 'machines/', 'drivers/', 'db/'].some((dir) =>
      existsSync(join(import.meta.dirname, '..', dir + file!)),
    );
    expect(found, file).toBe(true);
  }
});
