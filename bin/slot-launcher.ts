import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { preMigrationName } from '../db/pre-migration-backup.js';
import {
  appendHistory,
  fsyncDir,
  readSlotState,
  slotDir,
  slotsDir,
  writeSlotState,
  type SlotName,
  type SlotState,
  type Trial,
} from '../services/field-service/slots.js';

/**
 * The launcher (bin/launcher.ts is its process): what the systemd unit starts (docs/field-service.md#installing-an-update). It starts the active
 * version's controller as its child, or an installed update on trial, and decides: the trial reaches "healthy"
 * (the controller's ready message: database migrated, charge-point core running, API listening; then it stays up
 * for the settle time) and becomes the active version, or it does not and the launcher switches back, putting the
 * database copy made before the trial's migration back. Each start of a trial counts before it runs, so a crash
 * loop and power cuts during a trial end in a rollback too. Plain Node: it needs only the slot state and the name
 * of the database copy.
 */

export interface LauncherOptions {
  /** The install root (its own tree is `base`; the slots are `<root>/slots/a` and `b`). */
  root: string;
  /** The controller's database file (the one a rollback restores), or null for a database server. */
  databaseFile: string | null;
  /** A trial must be ready within this time of its start. */
  healthyWithinMs: number;
  /** …and then keep running this long before it is committed. */
  settleMs: number;
  /** Starts of a trial before it is rolled back (a crash loop, power cuts). */
  maxAttempts: number;
  /** SIGTERM, then SIGKILL after this long. */
  stopGraceMs: number;
  /** Node's options for the controller (the unit's, as `npm start` has them). */
  nodeArgs: string[];
  env: NodeJS.ProcessEnv;
  /**
   * systemd's watchdog interval (ms), if it asks for one: the launcher feeds it while a controller starts (a
   * migration, the switch to an update), since systemd's watchdog runs from the first READY=1 on and the
   * controller's core feeds it only once it runs.
   */
  watchdogMs?: number;
  /** To systemd (READY=1, STOPPING=1, WATCHDOG=1); nothing when not under systemd. */
  notify(message: string): void;
  log(message: string): void;
  now?: () => number;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (id: unknown) => void;
}

/** The controller's entry point in a version's tree. */
export const CONTROLLER_ENTRY = join('dist', 'bin', 'controller.js');

interface Running {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<number>;
}

export interface Launcher {
  /** Runs until the controller ends and nothing else is to start; answers the exit code for the supervisor. */
  run(): Promise<number>;
  /** Stops the running controller (SIGTERM from systemd). */
  stop(): void;
  /** An update was installed by a command-line tool: asks the controller to switch once no charge runs. */
  updateInstalled(): void;
}

export function createLauncher(opts: LauncherOptions): Launcher {
  const now = opts.now ?? Date.now;
  const after = opts.setTimeout ?? ((fn, ms) => setTimeout(fn, ms));
  const cancel = opts.clearTimeout ?? ((id) => clearTimeout(id as NodeJS.Timeout));
  const { root } = opts;
  let current: Running | undefined;
  let stopping = false;
  let readySent = false;

  const delay = (ms: number) => {
    let id: unknown;
    const promise = new Promise<'elapsed'>((done) => (id = after(() => done('elapsed'), ms)));
    return { promise, cancel: () => cancel(id) };
  };

  function start(slot: SlotName): Running {
    const env: NodeJS.ProcessEnv = { ...opts.env, CHARGE_CONTROLLER_LAUNCHER: '1' };
    delete env.WATCHDOG_PID; // the controller's core feeds systemd's watchdog itself (the unit: NotifyAccess=all)
    const dir = slotDir(root, slot);
    const child = spawn(process.execPath, [...opts.nodeArgs, join(dir, CONTROLLER_ENTRY)], { cwd: dir, env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
    const feeding = opts.watchdogMs ? setInterval(() => opts.notify('WATCHDOG=1'), opts.watchdogMs / 2) : undefined;
    const ready = new Promise<void>((done) =>
      child.on('message', (message: { type?: string }) => {
        if (message?.type !== 'ready') return;
        clearInterval(feeding);
        if (!readySent) opts.notify('READY=1');
        readySent = true;
        done();
      }),
    );
    child.once('exit', () => clearInterval(feeding));
    const exited = new Promise<number>((done) => {
      child.once('error', (err) => {
        opts.log(`the controller could not be started: ${err.message}`);
        done(1);
      });
      child.once('exit', (code, signal) => done(code ?? (signal ? 128 : 1)));
    });
    return (current = { child, ready, exited });
  }

  async function kill(running: Running): Promise<void> {
    running.child.kill('SIGTERM');
    const grace = delay(opts.stopGraceMs);
    if ((await Promise.race([running.exited, grace.promise])) === 'elapsed') running.child.kill('SIGKILL');
    grace.cancel();
    await running.exited;
  }

  /** Puts the database copy made before the trial's migration back (when the trial made one), then the old slot. */
  function rollBack(state: SlotState, trial: Trial, reason: string): void {
    if (!trial.rollingBack) writeSlotState(root, { ...state, trial: { ...trial, rollingBack: reason } });
    let database = 'the database was not migrated';
    if (opts.databaseFile && trial.firstNewMigration) {
      const copy = preMigrationName(opts.databaseFile, trial.firstNewMigration);
      if (existsSync(copy)) {
        // The WAL and shared memory belong to the migrated file: removed first, or SQLite would apply them to the copy.
        rmSync(`${opts.databaseFile}-wal`, { force: true });
        rmSync(`${opts.databaseFile}-shm`, { force: true });
        renameSync(copy, opts.databaseFile);
        fsyncDir(resolve(opts.databaseFile, '..'));
        database = `the database was put back as it was before migration ${trial.firstNewMigration}`;
      }
    }
    writeSlotState(root, { ...state, active: trial.fromSlot, trial: null });
    const full = `${trial.rollingBack ?? reason}; ${database}`;
    appendHistory(root, { event: 'rolled-back', version: trial.version, slot: trial.slot, fromVersion: trial.fromVersion, reason: full }, now);
    opts.log(`update ${trial.version} rolled back to ${trial.fromVersion}: ${full}`);
  }

  function commit(trial: Trial): void {
    const state = readSlotState(root);
    writeSlotState(root, { ...state, active: trial.slot, trial: null });
    appendHistory(root, { event: 'committed', version: trial.version, slot: trial.slot, fromVersion: trial.fromVersion }, now);
    opts.log(`update ${trial.version} is healthy: committed`);
  }

  /** An install that never completed (a power cut while unpacking) is discarded. */
  function discardUnfinishedInstalls(): void {
    if (!existsSync(slotsDir(root))) return;
    for (const name of readdirSync(slotsDir(root))) {
      if (name.endsWith('.unpacking') || name.endsWith('.tmp')) {
        rmSync(join(slotsDir(root), name), { recursive: true, force: true });
        opts.log(`discarded an unfinished install (${name})`);
      }
    }
  }

  /** The trial's start: ready in time and settled (committed), or why not. */
  async function runTrial(state: SlotState, trial: Trial): Promise<'committed' | { failed: string; exited: boolean }> {
    const attempt = { ...trial, attempts: trial.attempts + 1 };
    writeSlotState(root, { ...state, trial: attempt });
    opts.log(`starting update ${trial.version} on trial (start ${attempt.attempts} of ${opts.maxAttempts})`);
    const running = start(trial.slot);
    const deadline = delay(opts.healthyWithinMs);
    const first = await Promise.race([running.ready.then(() => 'ready' as const), running.exited, deadline.promise]);
    deadline.cancel();
    if (first === 'elapsed') {
      await kill(running);
      return { failed: `not healthy within ${opts.healthyWithinMs / 1000} s`, exited: true };
    }
    if (typeof first === 'number') return { failed: `ended with code ${first} before it was healthy`, exited: true };
    const settle = delay(opts.settleMs);
    const second = await Promise.race([running.exited, settle.promise]);
    settle.cancel();
    if (second !== 'elapsed') return { failed: `ended with code ${second} ${opts.settleMs / 1000} s after it was ready`, exited: true };
    commit(attempt);
    return 'committed';
  }

  return {
    async run() {
      discardUnfinishedInstalls();
      const damaged = readSlotState(root).damaged;
      if (damaged) opts.log(`the slot state cannot be read (${damaged}): starting the version installed by hand`);
      for (;;) {
        if (stopping) return 0;
        const state = readSlotState(root);
        const trial = state.trial;
        if (trial?.rollingBack) {
          rollBack(state, trial, trial.rollingBack);
          continue;
        }
        if (trial && trial.attempts >= opts.maxAttempts) {
          rollBack(state, trial, `not healthy in ${trial.attempts} starts (it crashed, hung or the power failed each time)`);
          continue;
        }
        if (trial) {
          const outcome = await runTrial(state, trial);
          if (outcome !== 'committed') {
            if (stopping) return 0; // stopped during its trial: the next start counts on
            const latest = readSlotState(root);
            const attempts = latest.trial?.attempts ?? 0;
            // A trial that hangs is not tried again; one that crashed is, until its starts are used up.
            if (/not healthy within/.test(outcome.failed) || attempts >= opts.maxAttempts) {
              rollBack(latest, latest.trial!, `version ${trial.version} ${outcome.failed}`);
              continue;
            }
            opts.log(`update ${trial.version} ${outcome.failed}; it is started again`);
            return 1;
          }
        } else {
          start(state.active);
        }
        const code = await current!.exited;
        if (stopping) return 0;
        const next = readSlotState(root);
        // A clean end with an update waiting (it switched once no charge ran): start it at once.
        if (code === 0 && next.trial && next.trial.attempts === 0) continue;
        return code === 0 ? 0 : code;
      }
    },
    stop() {
      stopping = true;
      opts.notify('STOPPING=1');
      if (current && current.child.exitCode === null) void kill(current);
    },
    updateInstalled() {
      if (current?.child.connected) current.child.send({ type: 'switch-when-idle' });
    },
  };
}

/** The launcher's pid, for `npm run update` to tell it an update was installed. */
export const launcherPidFile = (root: string) => join(slotsDir(root), 'launcher.pid');

export function writeLauncherPid(root: string): void {
  if (existsSync(slotsDir(root))) writeFileSync(launcherPidFile(root), `${process.pid}\n`);
}
