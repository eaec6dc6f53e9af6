import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

/**
 * The charge-point core's thread loads only what the charge cycle needs: the machines, the drivers, its own folder
 * and a few pure modules; never the database, the API, the logger or anything that serves requests. Read from the
 * sources' imports, so a new import across the boundary fails here.
 */

const ROOT = join(import.meta.dirname, '..', '..');

/** Every module (relative path) and package the entry reaches through static and dynamic imports. */
function closure(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    const rel = relative(ROOT, file);
    if (modules.has(rel)) return;
    modules.add(rel);
    const source = readFileSync(file, 'utf8');
    const specs = [...source.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    for (const spec of specs) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  };
  visit(join(ROOT, entry));
  return { modules, packages };
}

test('the core thread loads no database, API, logger or request-serving module', () => {
  const { modules, packages } = closure('services/core/worker.ts');
  const allowed = (m: string) =>
    m.startsWith('machines/') ||
    m.startsWith('drivers/') ||
    (m.startsWith('services/core/') && m !== 'services/core/link.ts') ||
    [
      'services/clock.ts',
      'services/hmi.ts',
      'services/messages.ts',
      'services/i18n.ts',
      'services/charge-point.ts',
      'services/inspection.ts',
      'services/loop-delay.ts',
      'services/systemd.ts',
    ].includes(m);
  expect([...modules].filter((m) => !allowed(m))).toEqual([]);
  expect(modules).toContain('machines/charge-cycle.ts');
  expect(modules).toContain('services/core/charge-point.ts');
  const builtins = [...packages].filter((p) => p.startsWith('node:'));
  expect([...packages].filter((p) => !builtins.includes(p)).sort()).toEqual(expect.arrayContaining(['valibot', 'xstate']));
  for (const forbidden of ['drizzle-orm', '@libsql/client', 'hono', '@hono/node-server', 'pino', 'prom-client']) expect(packages).not.toContain(forbidden);
});
