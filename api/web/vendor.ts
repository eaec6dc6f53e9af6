import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cspHash } from './assets.js';

/**
 * The browser libraries of the pages, served by the controller from its own node_modules (installed by
 * `npm install` like everything else; no CDN, no build step). Each is an ES module the browser imports by its bare
 * name through the pages' import map, except uPlot, whose minified build is a classic script (`window.uPlot`).
 * A test checks that every file exists and is served.
 */
export const VENDOR_FILES = [
  { path: '/web/vendor/preact.js', pkg: 'preact', file: 'dist/preact.mjs', specifier: 'preact' },
  { path: '/web/vendor/preact-hooks.js', pkg: 'preact', file: 'hooks/dist/hooks.mjs', specifier: 'preact/hooks' },
  { path: '/web/vendor/htm.js', pkg: 'htm', file: 'dist/htm.mjs', specifier: 'htm' },
  { path: '/web/vendor/signals-core.js', pkg: '@preact/signals-core', file: 'dist/signals-core.mjs', specifier: '@preact/signals-core' },
  { path: '/web/vendor/signals.js', pkg: '@preact/signals', file: 'dist/signals.mjs', specifier: '@preact/signals' },
  // @noble/hashes: sha2.js and the modules it imports (relative imports, so they keep their names).
  { path: '/web/vendor/noble-hashes/sha2.js', pkg: '@noble/hashes', file: 'sha2.js' },
  { path: '/web/vendor/noble-hashes/_md.js', pkg: '@noble/hashes', file: '_md.js' },
  { path: '/web/vendor/noble-hashes/_u64.js', pkg: '@noble/hashes', file: '_u64.js' },
  { path: '/web/vendor/noble-hashes/utils.js', pkg: '@noble/hashes', file: 'utils.js' },
  { path: '/web/vendor/uplot.js', pkg: 'uplot', file: 'dist/uPlot.iife.min.js' },
  { path: '/web/vendor/uplot.css', pkg: 'uplot', file: 'dist/uPlot.min.css' },
] as const;

/** The import map both pages carry: bare module names → the controller's own paths. */
const IMPORT_MAP = JSON.stringify({
  imports: {
    ...Object.fromEntries(VENDOR_FILES.flatMap((v) => ('specifier' in v ? [[v.specifier, v.path]] : []))),
    '@noble/hashes/': '/web/vendor/noble-hashes/',
  },
});

/** The import map as an inline script, and its hash for the Content-Security-Policy. */
export const IMPORT_MAP_SCRIPT = `<script type="importmap">${IMPORT_MAP}</script>`;
export const IMPORT_MAP_HASH = cspHash(IMPORT_MAP);

/** Where a package is installed: the first node_modules above this module (source or compiled) that holds it. */
export function packageFile(pkg: string, file: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'node_modules', pkg, file);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${pkg}/${file} not found in node_modules (run npm install)`);
    dir = parent;
  }
}
