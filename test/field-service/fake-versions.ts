import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildUpdateFile } from '../../services/field-service/build-update.js';

/**
 * Tiny controller "versions" for the launcher's bad-day tests: a tree with package.json, a migration journal and
 * `dist/bin/controller.js`, which opens the database as the real controller does (the real copy before migrating,
 * db/pre-migration-backup.ts, then drizzle's migrator), tells the launcher it is ready over the same IPC message,
 * and ends gracefully on SIGTERM or when told to switch to an installed update. Its behaviour is what a bad
 * version does: crash after migrating, never become ready. Update files are built from it by the real release
 * function (buildUpdateFile) and installed by the real installer.
 */

export const ROOT = join(import.meta.dirname, '..', '..');

export type Behaviour = 'good' | 'crash' | 'hang';

export interface Migration {
  tag: string;
  sql: string[];
}

export const INITIAL: Migration = { tag: '0000_charges', sql: ['CREATE TABLE charges (id integer PRIMARY KEY, kwh real NOT NULL)'] };
export const ADD_METER: Migration = { tag: '0001_meter', sql: ['ALTER TABLE charges ADD COLUMN meter text'] };
/** Its first statement works, its second fails: a migration failing halfway. */
export const BROKEN: Migration = { tag: '0002_broken', sql: ['CREATE TABLE tariffs (id integer PRIMARY KEY)', 'INSERT INTO no_such_table VALUES (1)'] };

const controllerScript = (version: string, behaviour: Behaviour) => `
import { appendFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
const require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const dataDir = process.env.DATA_DIR;
const file = join(dataDir, 'controller.db');
appendFileSync(join(dataDir, 'starts.log'), ${JSON.stringify(version)} + '\\n');
const { createClient } = await load('@libsql/client');
const { drizzle } = await load('drizzle-orm/libsql');
const { migrate } = await load('drizzle-orm/libsql/migrator');
const { backUpBeforeMigrating } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'db', 'pre-migration-backup.js')).href)});
const client = createClient({ url: 'file:' + file });
await client.execute('PRAGMA journal_mode=WAL');
const migrations = join(import.meta.dirname, '..', '..', 'db', 'migrations');
await backUpBeforeMigrating(client, file, migrations);
await migrate(drizzle(client), { migrationsFolder: migrations });
if (${JSON.stringify(behaviour)} === 'crash') process.exit(3);
const end = () => { client.close(); process.exit(0); };
process.on('SIGTERM', end);
process.on('message', (m) => { if (m && m.type === 'switch-when-idle') end(); });
if (${JSON.stringify(behaviour)} === 'hang') setInterval(() => {}, 60000);
else {
  writeFileSync(join(dataDir, 'running'), ${JSON.stringify(version)});
  process.send({ type: 'ready' });
  setInterval(() => {}, 60000);
}
`;

/** Writes a fake controller tree of `version` into `dir`. */
export async function writeFakeTree(dir: string, version: string, migrations: Migration[], behaviour: Behaviour, padding = 0): Promise<void> {
  await mkdir(join(dir, 'dist', 'bin'), { recursive: true });
  await mkdir(join(dir, 'db', 'migrations', 'meta'), { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'charge-controller', version, type: 'module' }));
  await writeFile(join(dir, 'dist', 'bin', 'controller.js'), controllerScript(version, behaviour));
  const entries = migrations.map((m, idx) => ({ idx, version: '6', when: 1_700_000_000_000 + idx * 1000, tag: m.tag, breakpoints: true }));
  await writeFile(join(dir, 'db', 'migrations', 'meta', '_journal.json'), JSON.stringify({ version: '7', dialect: 'sqlite', entries }));
  for (const m of migrations) await writeFile(join(dir, 'db', 'migrations', `${m.tag}.sql`), m.sql.join('\n--> statement-breakpoint\n'));
  // Incompressible bytes: an install that takes long enough to be cut in the middle.
  if (padding > 0) await writeFile(join(dir, 'dist', 'padding.bin'), randomBytes(padding));
}

/** The update file of a fake tree, built by the release code. */
export async function fakeUpdate(dir: string, secretKey: Uint8Array, minimumVersion = '0.0.0') {
  const { file } = await buildUpdateFile({ tree: dir, paths: ['dist', 'db', 'package.json'], secretKey, minimumVersion, architecture: 'any' });
  return file;
}

/**
 * The stand-in for systemd: starts the launcher (dist/bin/launcher.js, the unit's ExecStart) and starts it again
 * whenever it ends (Restart=always), each in a process group of its own so a power cut can take it with its child.
 */
export function supervise(env: NodeJS.ProcessEnv) {
  let launcher: ChildProcess | undefined;
  let stopped = false;
  let starts = 0;
  const output: string[] = [];
  const startLauncher = () => {
    starts++;
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'bin', 'launcher.js')], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (t: string) => output.push(t));
    child.stderr!.setEncoding('utf8').on('data', (t: string) => output.push(t));
    child.once('exit', () => {
      if (!stopped) startLauncher();
    });
    launcher = child;
  };
  startLauncher();
  return {
    get starts() {
      return starts;
    },
    output: () => output.join(''),
    /** The launcher's process (SIGHUP: an update was installed). */
    pid: () => launcher!.pid!,
    /** A power cut: the launcher and its controller die at once; "power comes back": the supervisor starts it again. */
    powerCut() {
      try {
        process.kill(-launcher!.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
    async stop() {
      stopped = true;
      const last = launcher!;
      if (last.exitCode === null && last.signalCode === null) {
        const ended = new Promise((done) => last.once('exit', done));
        process.kill(-last.pid!, 'SIGKILL');
        await ended;
      }
    },
  };
}

/** Waits until `condition` holds (looked at every 50 ms); the test's own timeout bounds it. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((done) => setTimeout(done, 50));
}
