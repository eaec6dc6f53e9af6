/**
 * `node bin/run.mjs <command> [args…]` runs `dist/bin/<command>.js` or the development tool `dist/bin/dev/<command>.js`
 * (`npm run accounts`; `npm run sim`, `npm run csms`), building first only when a source file changed since the last
 * build. Plain JavaScript: it decides whether the TypeScript must be compiled, so it cannot itself need compiling.
 *
 * A built tree starts at once (no compiler run: about 3–4 s saved per call). Where the TypeScript compiler is not
 * installed (a Raspberry Pi with `npm ci --omit=dev`), the built files run as they are.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The folders tsconfig.build.json compiles, and the files that change what it emits. */
const SOURCES = ['api', 'bin', 'db', 'drivers', 'machines', 'services'];
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];
/** Written after every build this launcher runs: sources older than it are compiled in dist/. */
const STAMP = join(ROOT, 'dist', '.built');
/** Written by every `npm run build` that emitted something (tsc's incremental state). */
const BUILD_INFO = join(ROOT, 'dist', '.tsbuildinfo');
const mtime = (path) => (existsSync(path) ? statSync(path).mtimeMs : 0);

/** The newest modification time among the sources (ms). */
function newestSource() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  for (const dir of SOURCES) if (existsSync(join(ROOT, dir))) visit(join(ROOT, dir));
  for (const file of CONFIGS) if (existsSync(join(ROOT, file))) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  return newest;
}

const [command, ...args] = process.argv.slice(2);
if (!command || !/^[a-z][a-z-]*$/.test(command)) {
  process.stderr.write('usage: node bin/run.mjs <command> [args…]  (runs dist/bin/<command>.js or dist/bin/dev/<command>.js)\n');
  process.exit(2);
}
/** A runtime command (bin/) or a development tool (bin/dev/), whichever has the source (or, without sources, is built). */
const under = (dir) => join(ROOT, ...dir, `${command}.js`);
const isDev = existsSync(join(ROOT, 'bin', 'dev', `${command}.ts`)) || existsSync(under(['dist', 'bin', 'dev']));
const entry = under(isDev ? ['dist', 'bin', 'dev'] : ['dist', 'bin']);
// Stale: the command is not built, or a source changed after the last build. A tree without sources (a Raspberry
// Pi with the built files only) is never stale.
if (!existsSync(entry) || newestSource() > Math.max(mtime(STAMP), mtime(BUILD_INFO))) {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  if (existsSync(tsc)) {
    const started = Date.now();
    const build = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
    writeFileSync(STAMP, `${new Date().toISOString()}\n`);
    process.stderr.write(`(built in ${((Date.now() - started) / 1000).toFixed(1)} s: sources had changed)\n`);
  } else if (!existsSync(entry)) {
    process.stderr.write(`${entry} is missing and the TypeScript compiler is not installed: build on a development machine (npm run build)\n`);
    process.exit(2);
  }
}
// The command reads its arguments from process.argv[2…], as when it is run directly.
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
