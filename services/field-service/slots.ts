import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SwitchMode } from './update-settings.js';

/**
 * The installed versions (docs/field-service.md#installing-an-update): the install root's own tree (`base`, put
 * there by hand) and two slots, `<root>/slots/a` and `<root>/slots/b`, one of them active and the other free for the
 * next update or holding the version before. `slots/state.json` says which runs and which is on trial; the launcher
 * (bin/launcher.ts) and the installer (install-update.ts) are the only writers, and every write is atomic (a power
 * cut leaves the old file or the new one). `slots/history.json` keeps what happened, for people.
 */

export type SlotName = 'base' | 'a' | 'b';

export interface Trial {
  slot: 'a' | 'b';
  version: string;
  /** The slot and version that ran before, and run again on a rollback. */
  fromSlot: SlotName;
  fromVersion: string;
  /**
   * The first database migration the new version brings (its start copies the database as it was to
   * `controller.db.before-<tag>`, db/pre-migration-backup.ts, which a rollback puts back); null: none.
   */
  firstNewMigration: string | null;
  installedAt: string;
  /** Starts of the new version so far (each start counts before it runs: a power cut counts too). */
  attempts: number;
  /**
   * How the running controller switches to it (docs/field-service.md#a-charge-running), when the installer was
   * told; absent: the controller's setting UpdateSwitchMode decides.
   */
  switchMode?: SwitchMode;
  /** Set once a rollback was decided (why): a start finds it and completes the rollback. */
  rollingBack?: string;
}

export interface SlotState {
  format: 1;
  active: SlotName;
  /** The version each slot holds (what its package.json says). */
  versions: Partial<Record<SlotName, string>>;
  trial: Trial | null;
}

export type HistoryEvent = 'installed' | 'committed' | 'rolled-back' | 'install-failed';

export interface HistoryEntry {
  at: string;
  event: HistoryEvent;
  version: string;
  slot?: SlotName;
  /** The version that ran when it happened. */
  fromVersion?: string;
  reason?: string;
}

/** The history keeps this many entries (the oldest dropped first). */
export const HISTORY_LIMIT = 200;

export const slotsDir = (root: string) => join(root, 'slots');
export const slotDir = (root: string, slot: SlotName) => (slot === 'base' ? root : join(slotsDir(root), slot));
/** Where an install unpacks before the slot takes its place (a leftover is an install that never completed). */
export const unpackingDir = (root: string, slot: 'a' | 'b') => join(slotsDir(root), `${slot}.unpacking`);
const stateFile = (root: string) => join(slotsDir(root), 'state.json');
const historyFile = (root: string) => join(slotsDir(root), 'history.json');

/** The install root of the controller tree `tree`: the tree itself, or the root when the tree is one of its slots. */
export const installRootOf = (tree: string): string => (basename(dirname(tree)) === 'slots' ? dirname(dirname(tree)) : tree);

/** The slot an update installs into: the one neither running nor the version before it (never `base`). */
export const inactiveSlot = (state: SlotState): 'a' | 'b' => (state.active === 'a' ? 'b' : 'a');

/** Writes `text` to `file` atomically: a temporary file, fsync, rename, fsync of the folder. */
export function writeFileAtomic(file: string, text: string): void {
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  fsyncDir(dirname(file));
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The version a controller tree holds (its package.json), or `unknown`. */
export function treeVersion(dir: string): string {
  try {
    return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The migrations a controller tree brings, in order (its migration journal). */
export function treeMigrations(dir: string): string[] {
  try {
    const journal = JSON.parse(readFileSync(join(dir, 'db', 'migrations', 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
    return journal.entries.map((e) => e.tag);
  } catch {
    return [];
  }
}

/**
 * The state; before the first update (no file) the base tree is active. A file that cannot be read or is not a
 * state (a damaged card: writes are atomic) also answers the base tree, with `damaged` set: a charger that starts
 * the version installed by hand beats one that does not start.
 */
export function readSlotState(root: string): SlotState & { damaged?: string } {
  try {
    const state = JSON.parse(readFileSync(stateFile(root), 'utf8')) as SlotState;
    if (state.format === 1 && ['base', 'a', 'b'].includes(state.active)) return state;
    return { ...baseState(root), damaged: 'not a slot state' };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return baseState(root);
    return { ...baseState(root), damaged: (err as Error).message };
  }
}

const baseState = (root: string): SlotState => ({ format: 1, active: 'base', versions: { base: treeVersion(root) }, trial: null });

export function writeSlotState(root: string, { format, active, versions, trial }: SlotState): void {
  writeFileAtomic(stateFile(root), `${JSON.stringify({ format, active, versions, trial }, null, 2)}\n`);
}

export function readHistory(root: string): HistoryEntry[] {
  try {
    return JSON.parse(readFileSync(historyFile(root), 'utf8')) as HistoryEntry[];
  } catch {
    return []; // none yet (or a file a power cut broke before atomic writes: history is for people, not for decisions)
  }
}

export function appendHistory(root: string, entry: Omit<HistoryEntry, 'at'>, now: () => number = Date.now): void {
  const history = [...readHistory(root), { at: new Date(now()).toISOString(), ...entry }].slice(-HISTORY_LIMIT);
  writeFileAtomic(historyFile(root), `${JSON.stringify(history, null, 2)}\n`);
}
