import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';

const require = createRequire(import.meta.url);

/**
 * Loads a CommonJS package the main thread needs only later (the MQTT and OCPP client libraries, loaded at their
 * first connection) one dependency per turn of the event loop, then the package itself. Loaded in one piece such a
 * package is one synchronous evaluation: 0.7–1.4 s for mqtt and 1.0–1.6 s for ocpp-rpc on a busy 2-core machine
 * (issue 34's soak), during which the main thread sends the charge-point core nothing, and past
 * LIVENESS_TIMEOUT_MS the core opens the contactor and ends the process. In steps, each turn is well under that
 * (the largest measured: 80 ms per dependency, 400 ms for ocpp-rpc's OCPP 1.6 validator).
 *
 * `steps` run after the dependencies, each in its own turn, with a `require` resolving from inside the package.
 */
export async function loadInSteps<T>(name: string, load: () => Promise<T>, steps: Array<(fromPackage: NodeJS.Require) => unknown> = []): Promise<T> {
  const fromPackage = createRequire(require.resolve(name));
  for (const dependency of dependenciesOf(name)) {
    try {
      fromPackage(dependency);
    } catch {
      // An optional or ESM-only dependency: the package's own load deals with it.
    }
    await nextTurn();
  }
  for (const step of steps) {
    step(fromPackage);
    await nextTurn();
  }
  return load();
}

/** The package's runtime dependencies (package.json `dependencies`, type packages left out). */
function dependenciesOf(name: string): string[] {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; dependencies?: Record<string, string> };
      if (json.name === name) return Object.keys(json.dependencies ?? {}).filter((d) => !d.startsWith('@types/'));
    } catch {
      // No package.json here: look further up.
    }
    const up = dirname(dir);
    if (up === dir) return [];
    dir = up;
  }
}
