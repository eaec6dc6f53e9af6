import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { slotsDir } from './slots.js';
import { UpdateRefused } from './update-file.js';

/**
 * One install at a time (docs/field-service.md#the-sequence): `npm run update`, OCPP UpdateFirmware and the web
 * upload run in different processes, so the lock is a file, `slots/install.lock`, created only if absent (O_EXCL),
 * holding the installer's pid and the time. A lock whose process is gone, or older than any install takes (a
 * power cut, a pid reused after a reboot), is taken over with a log line.
 */

/** An install holding the lock longer than this is dead (unpacking tens of MB on a Pi takes a few minutes). */
export const INSTALL_LOCK_STALE_MS = 30 * 60_000;
/** A lock file without its line this long after it was made lost its writer (it writes the line at once). */
const UNWRITTEN_STALE_MS = 60_000;

export const installLockFile = (root: string) => join(slotsDir(root), 'install.lock');

export interface LockOptions {
  now?: () => number;
  log?: (message: string) => void;
}

interface Holder {
  pid: number;
  at: string;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // runs, as another user
  }
};

function parse(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Holder;
    return Number.isInteger(holder.pid) && typeof holder.at === 'string' ? holder : undefined;
  } catch {
    return undefined;
  }
}

/** Why the lock `text` (made at `madeAt`) is stale, or undefined while its install may still run. */
function staleness(text: string, madeAt: number, now: number): string | undefined {
  const holder = parse(text);
  if (!holder) return now - madeAt > UNWRITTEN_STALE_MS ? 'its holder never wrote it' : undefined;
  if (!alive(holder.pid)) return `process ${holder.pid} is gone`;
  const at = Date.parse(holder.at);
  if (!Number.isFinite(at) || now - at > INSTALL_LOCK_STALE_MS) return `taken at ${holder.at}, longer ago than any install takes`;
  return undefined;
}

/**
 * Takes the install lock, or refuses (UpdateRefused) while another install holds it. Answers its release, which
 * removes the lock only while it is still this one (not one that took it over).
 */
export function takeInstallLock(root: string, { now = Date.now, log = () => {} }: LockOptions = {}): () => void {
  const madeFolder = !existsSync(slotsDir(root));
  mkdirSync(slotsDir(root), { recursive: true });
  const file = installLockFile(root);
  const mine = `${JSON.stringify({ pid: process.pid, at: new Date(now()).toISOString() } satisfies Holder)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let text: string;
      let madeAt: number;
      try {
        text = readFileSync(file, 'utf8');
        madeAt = statSync(file).mtimeMs;
      } catch {
        continue; // released in between
      }
      const stale = staleness(text, madeAt, now());
      if (!stale) {
        const holder = parse(text);
        throw new UpdateRefused(
          `Another install is running${holder ? ` (process ${holder.pid}, since ${holder.at})` : ''}: nothing was changed; try again once it has ended`,
        );
      }
      takeOver(file, text);
      log(`took over a stale install lock (${stale})`);
      continue;
    }
    try {
      writeSync(fd, mine);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return () => {
      try {
        if (readFileSync(file, 'utf8') === mine) rmSync(file, { force: true });
      } catch {
        // already gone
      }
      if (madeFolder) {
        try {
          rmdirSync(slotsDir(root)); // a refused install leaves no folder behind; one that installed leaves it full
        } catch {
          // not empty
        }
      }
    };
  }
  throw new UpdateRefused('Another install took the install lock at the same moment: nothing was changed; try again once it has ended');
}

/**
 * Moves the stale lock aside (atomic: of two takers one moves it). Should the moved file not be the stale one
 * (another taker replaced it in between), it is put back where it was.
 */
function takeOver(file: string, staleText: string): void {
  const aside = `${file}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(file, aside);
  } catch {
    return; // another taker moved it first
  }
  try {
    if (readFileSync(aside, 'utf8') !== staleText) linkSync(aside, file);
  } catch {
    // a lock was taken in between: the next attempt finds it
  } finally {
    rmSync(aside, { force: true });
  }
}
