import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { FIELDS } from '../services/settings/catalogue.js';

/**
 * No setting without effect: every changeable setting of the catalogue is read by the code that applies it
 * (outside the catalogue, the features' declarations, the texts and the generated documentation). The tests of
 * each effect are beside that code (charge cycle, NFC, log level, language, network); this one fails when a setting
 * is added that nothing reads. The OCPP settings belong to the OCPP client, which is being built apart.
 */

const ROOT = join(import.meta.dirname, '..');
const NOT_CONSUMERS = new Set([
  'services/settings/catalogue.ts',
  'services/settings/translations.ts',
  'services/settings/docs.ts',
  'services/settings/types.ts',
]);
/** A feature's declarations (services/settings/types.ts `declare`) name keys as parents: they do not read them. */
const declares = (source: string) => /\bdeclare\(\{/.test(source);
const OCPP = new Set(['OcppEnabled', 'OcppUrl', 'OcppChargeBoxId', 'OcppHeartbeatInterval', 'OCPPWLEnabled']);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

test('every changeable setting is read where the controller applies it', () => {
  const code = ['services', 'api', 'machines', 'drivers', 'bin']
    .flatMap(sources)
    .filter((f) => !NOT_CONSUMERS.has(relative(ROOT, join(ROOT, f))) && !f.startsWith('bin/dev/'))
    .map((f) => readFileSync(join(ROOT, f), 'utf8'))
    .filter((source) => !declares(source))
    .join('\n');
  const unread = [...FIELDS.values()].filter((f) => f.mode === 'rw' && !OCPP.has(f.key) && !code.includes(`'${f.key}'`)).map((f) => f.key);
  expect(unread).toEqual([]);
});
