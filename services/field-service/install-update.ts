import { spawn } from 'node:child_process';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  appendHistory,
  fsyncDir,
  inactiveSlot,
  readSlotState,
  slotDir,
  slotsDir,
  treeMigrations,
  treeVersion,
  unpackingDir,
  writeSlotState,
  type SlotName,
} from './slots.js';
import { takeInstallLock } from './install-lock.js';
import { UpdateRefused, verifyUpdateFile, type UpdateManifest } from './update-file.js';
import type { SwitchMode } from './update-settings.js';

/**
 * Installing an update file (docs/field-service.md#installing-an-update): verify it against the running version
 * (the active slot's), unpack its payload beside the inactive slot, fsync it, put it in the slot's place and mark
 * it for trial. The launcher (bin/launcher.ts) starts it at the next start of the controller and decides between
 * commit and rollback. A power cut at any point leaves the state file as it was (no trial) or with the complete
 * trial: an unpacking left behind is discarded by the next launcher start or install. One install runs at a time
 * (install-lock.ts): a second one is refused and changes nothing.
 */

export interface InstallOptions {
  /** The install root (its own tree is the `base` version; the slots are under `<root>/slots`). */
  root: string;
  trustedKeys: readonly Uint8Array[];
  /** `${process.platform}-${process.arch}` unless given (tests). */
  architecture?: string;
  now?: () => number;
  /** How the running controller is to switch to it (kept in the trial); absent: its setting UpdateSwitchMode. */
  switchMode?: SwitchMode;
  /** Where the taking over of a stale install lock is logged. */
  log?: (message: string) => void;
}

export interface Installed {
  manifest: UpdateManifest;
  slot: 'a' | 'b';
  fromVersion: string;
}

/** Why an install that passed verification did not complete (the state is unchanged; recorded in the history). */
export class InstallFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallFailed';
  }
}

export async function installUpdate(file: Uint8Array, opts: InstallOptions): Promise<Installed> {
  const release = takeInstallLock(opts.root, { ...(opts.now ? { now: opts.now } : {}), ...(opts.log ? { log: opts.log } : {}) });
  try {
    return await installLocked(file, opts);
  } finally {
    release();
  }
}

async function installLocked(file: Uint8Array, { root, trustedKeys, architecture, now = Date.now, switchMode }: InstallOptions): Promise<Installed> {
  const state = readSlotState(root);
  if (state.trial) {
    throw new UpdateRefused(`Version ${state.trial.version} is installed and waiting for or on its trial: install again once it is committed or rolled back`);
  }
  const activeDir = slotDir(root, state.active);
  const fromVersion = state.versions[state.active] ?? treeVersion(activeDir);
  const running = { version: fromVersion, migrations: treeMigrations(activeDir), architecture: architecture ?? `${process.platform}-${process.arch}` };
  const { manifest, payload } = verifyUpdateFile(file, trustedKeys, running);
  const slot = inactiveSlot(state);
  const unpacking = unpackingDir(root, slot);
  try {
    await mkdir(slotsDir(root), { recursive: true });
    await rm(unpacking, { recursive: true, force: true });
    await mkdir(unpacking);
    await untar(payload, unpacking);
    if (!existsSync(join(unpacking, 'dist', 'bin', 'controller.js')) || treeVersion(unpacking) !== manifest.version) {
      throw new InstallFailed(`The payload is not a controller of version ${manifest.version} (no dist/bin/controller.js or another package.json version)`);
    }
    fsyncTree(unpacking);
    await rm(slotDir(root, slot), { recursive: true, force: true });
    await rename(unpacking, slotDir(root, slot));
    fsyncDir(slotsDir(root));
    writeSlotState(root, {
      ...state,
      versions: { ...state.versions, [slot]: manifest.version } as Partial<Record<SlotName, string>>,
      trial: {
        slot,
        version: manifest.version,
        fromSlot: state.active,
        fromVersion,
        firstNewMigration: manifest.migrations[running.migrations.length] ?? null,
        installedAt: new Date(now()).toISOString(),
        attempts: 0,
        ...(switchMode ? { switchMode } : {}),
      },
    });
  } catch (err) {
    await rm(unpacking, { recursive: true, force: true }).catch(() => {});
    const reason = err instanceof Error ? err.message : String(err);
    try {
      appendHistory(root, { event: 'install-failed', version: manifest.version, slot, fromVersion, reason }, now);
    } catch {
      // a full disk may refuse the history too; the answer still says why
    }
    throw err instanceof InstallFailed ? err : new InstallFailed(`Installing version ${manifest.version} failed: ${reason}`);
  }
  appendHistory(root, { event: 'installed', version: manifest.version, slot, fromVersion }, now);
  return { manifest, slot, fromVersion };
}

/** Unpacks a tar.gz into `dir` (the system's tar: on the Pi and every development machine). */
function untar(payload: Buffer, dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const tar = spawn('tar', ['-xzf', '-', '-C', dir, '--no-same-owner'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    tar.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    tar.stdin.on('error', () => {}); // tar ended early: its exit says why
    tar.once('error', reject);
    tar.once('close', (code) => (code === 0 ? resolve() : reject(new InstallFailed(`unpacking failed: ${stderr.trim() || `tar exited with ${code}`}`))));
    tar.stdin.end(payload);
  });
}

/** fsyncs every file and folder below `dir` (unpacked files are in the page cache until then). */
function fsyncTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) fsyncTree(path);
    else if (entry.isFile()) {
      const fd = openSync(path, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  }
  fsyncDir(dir);
}
