import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { installUpdate } from '../../services/field-service/install-update.js';
import { INSTALL_LOCK_STALE_MS, installLockFile, takeInstallLock } from '../../services/field-service/install-lock.js';
import { readHistory, readSlotState, slotDir } from '../../services/field-service/slots.js';
import { newSigningKey, UpdateRefused } from '../../services/field-service/update-file.js';
import { ADD_METER, fakeUpdate, INITIAL, ROOT, until, writeFakeTree } from './fake-versions.js';

/**
 * One install at a time (docs/field-service.md#the-sequence): the command line, OCPP and the web upload each run
 * the installer, in two processes; the lock file in the slots folder keeps them apart, and a lock its holder left
 * behind (killed, power cut) is taken over.
 */

const key = newSigningKey();
let root: string;
let keys: string;
let file: Buffer;
const holders: ChildProcess[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-lock-'));
  await writeFakeTree(root, '0.1.0', [INITIAL], 'good');
  keys = join(root, 'update-keys');
  await writeFile(keys, `${Buffer.from(key.publicKey).toString('hex')}\n`);
  await writeFakeTree(join(root, 'next'), '0.2.0', [INITIAL, ADD_METER], 'good');
  file = await fakeUpdate(join(root, 'next'), key.secretKey);
  await writeFile(join(root, 'update.ccupdate'), file);
});

afterEach(async () => {
  for (const h of holders.splice(0)) if (h.exitCode === null && h.signalCode === null) h.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

const logs: string[] = [];
const install = () => installUpdate(file, { root, trustedKeys: [key.publicKey], log: (m) => logs.push(m) });

/** Nothing was installed: no trial, no slot, no history. */
const unchanged = () => {
  expect(readSlotState(root)).toMatchObject({ active: 'base', trial: null });
  expect(existsSync(slotDir(root, 'a'))).toBe(false);
  expect(readHistory(root)).toEqual([]);
};

/** `npm run update` as a process of its own (the built CLI). */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'dist', 'bin', 'update.js'), ...args],
      { env: { PATH: process.env.PATH, UPDATE_ROOT: root, UPDATE_TRUSTED_KEYS: keys } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Another process holding the install lock (the real lock code, built) until it is killed. */
async function holderProcess(): Promise<ChildProcess> {
  const lock = pathToFileURL(join(ROOT, 'dist', 'services', 'field-service', 'install-lock.js')).href;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { takeInstallLock } = await import(${JSON.stringify(lock)}); takeInstallLock(${JSON.stringify(root)});` +
        "console.log('locked'); setInterval(() => {}, 60000);",
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  holders.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (t: string) => (out += t));
  await until(() => out.includes('locked'));
  return child;
}

describe('two installs at once', () => {
  test('the in-process installer holds the lock: the command line is refused with the reason and changes nothing; released, it installs', async () => {
    const release = takeInstallLock(root);
    const refused = await cli(join(root, 'update.ccupdate'), '--no-switch');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`refused: Another install is running \\(process ${process.pid}, since .*\\): nothing was changed`));
    unchanged();
    release();
    expect(existsSync(installLockFile(root))).toBe(false);
    const installed = await cli(join(root, 'update.ccupdate'), '--no-switch');
    expect(installed.stdout).toMatch(/installed: version 0.2.0 in slot a/);
    expect(readSlotState(root).trial).toMatchObject({ version: '0.2.0' });
    expect(existsSync(installLockFile(root))).toBe(false);
  });

  test('another process holds the lock: the in-process installer is refused (UpdateRefused) and changes nothing', async () => {
    const holder = await holderProcess();
    const error = await install().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UpdateRefused);
    expect((error as Error).message).toMatch(new RegExp(`Another install is running \\(process ${holder.pid}, `));
    unchanged();
    expect(JSON.parse(await readFile(installLockFile(root), 'utf8'))).toMatchObject({ pid: holder.pid });
  });

  test('two installs in one process (OCPP and the web upload): one installs, the other is refused', async () => {
    const [first, second] = await Promise.allSettled([install(), install()]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { slot: 'a' } });
    expect(second).toMatchObject({ status: 'rejected', reason: expect.any(UpdateRefused) });
    expect((second as PromiseRejectedResult).reason.message).toMatch(/Another install is running/);
    expect(readHistory(root).map((h) => h.event)).toEqual(['installed']);
    expect(existsSync(installLockFile(root))).toBe(false);
  });

  test('the lock is released when the install fails or is refused', async () => {
    const tampered = Buffer.from(file);
    tampered[tampered.length - 10]! ^= 0xff;
    await expect(installUpdate(tampered, { root, trustedKeys: [key.publicKey] })).rejects.toThrow(/does not match its signed checksum/);
    expect(existsSync(installLockFile(root))).toBe(false);
    unchanged();
    expect(existsSync(join(root, 'slots'))).toBe(false); // a refused file leaves no folder either
  });
});

describe('a stale lock is taken over, with a log line', () => {
  test('its process is gone (killed in the middle of an install)', async () => {
    const holder = await holderProcess();
    const ended = new Promise((done) => holder.once('exit', done));
    holder.kill('SIGKILL');
    await ended;
    logs.length = 0;
    await expect(install()).resolves.toMatchObject({ slot: 'a' });
    expect(logs).toEqual([`took over a stale install lock (process ${holder.pid} is gone)`]);
    expect(existsSync(installLockFile(root))).toBe(false);
  });

  test('the command line takes over a lock whose process is gone and says so', async () => {
    const holder = await holderProcess();
    const ended = new Promise((done) => holder.once('exit', done));
    holder.kill('SIGKILL');
    await ended;
    const installed = await cli(join(root, 'update.ccupdate'), '--no-switch');
    expect(installed.code).toBe(0);
    expect(installed.stderr).toContain(`took over a stale install lock (process ${holder.pid} is gone)`);
    expect(readSlotState(root).trial).toMatchObject({ version: '0.2.0' });
  });

  test('older than any install takes (a pid reused after a power cut), by the injected clock', async () => {
    const taken = Date.UTC(2026, 5, 1, 8, 0, 0);
    takeInstallLock(root, { now: () => taken }); // this process lives on: only its age makes it stale
    logs.length = 0;
    const at = (now: number) => installUpdate(file, { root, trustedKeys: [key.publicKey], now: () => now, log: (m) => logs.push(m) });
    await expect(at(taken + INSTALL_LOCK_STALE_MS)).rejects.toBeInstanceOf(UpdateRefused);
    unchanged();
    await expect(at(taken + INSTALL_LOCK_STALE_MS + 1000)).resolves.toMatchObject({ slot: 'a' });
    expect(logs).toEqual(['took over a stale install lock (taken at 2026-06-01T08:00:00.000Z, longer ago than any install takes)']);
  });
});
