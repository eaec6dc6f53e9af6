import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { InstallFailed, installUpdate } from '../../services/field-service/install-update.js';
import { readHistory, readSlotState, slotDir } from '../../services/field-service/slots.js';
import { newSigningKey, UpdateRefused } from '../../services/field-service/update-file.js';
import { ADD_METER, BROKEN, fakeUpdate, INITIAL, ROOT, supervise, until, writeFakeTree, type Behaviour, type Migration } from './fake-versions.js';

/**
 * Installing updates on the bad days (docs/field-service.md#installing-an-update): the real installer and the real
 * launcher (dist/bin/launcher.js, started by a stand-in for systemd that restarts it), with tiny fake versions.
 * Every case ends with the old version running (or the good new one committed) and the old data intact.
 */

const key = newSigningKey();
let root: string;
let data: string;
let keys: string;
let supervisor: ReturnType<typeof supervise> | undefined;

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  UPDATE_ROOT: root,
  DATA_DIR: data,
  UPDATE_HEALTHY_WITHIN_S: '20',
  UPDATE_SETTLE_S: '0',
  UPDATE_MAX_STARTS: '3',
  UPDATE_STOP_GRACE_S: '2',
  ...extra,
});
const running = () => readFile(join(data, 'running'), 'utf8').catch(() => '');
const starts = async () => (await readFile(join(data, 'starts.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
const db = () => createClient({ url: `file:${join(data, 'controller.db')}` });
const charges = async () => {
  const client = db();
  try {
    return (await client.execute('SELECT id, kwh FROM charges ORDER BY id')).rows.map((r) => [Number(r.id), Number(r.kwh)]);
  } finally {
    client.close();
  }
};
const tables = async () => {
  const client = db();
  try {
    return (await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_\\_%' ESCAPE '\\' ORDER BY name")).rows.map(
      (r) => r.name,
    );
  } finally {
    client.close();
  }
};
const columns = async () => {
  const client = db();
  try {
    return (await client.execute('PRAGMA table_info(charges)')).rows.map((r) => r.name);
  } finally {
    client.close();
  }
};

/** A new version's update file: a fake tree of that version, packed and signed by the release code. */
async function update(version: string, migrations: Migration[], behaviour: Behaviour, padding = 0): Promise<Buffer> {
  const tree = await mkdtemp(join(tmpdir(), 'cc-version-'));
  try {
    await writeFakeTree(tree, version, migrations, behaviour, padding);
    return await fakeUpdate(tree, key.secretKey);
  } finally {
    await rm(tree, { recursive: true, force: true });
  }
}

const install = (file: Buffer) => installUpdate(file, { root, trustedKeys: [key.publicKey] });

/** The old version (0.1.0, the base tree) running under the launcher with a charge of 7.5 kWh in its database. */
async function startOld(extra: Record<string, string> = {}): Promise<void> {
  supervisor = supervise(env(extra));
  await until(async () => (await running()) === '0.1.0');
  const client = db();
  await client.execute('INSERT INTO charges (kwh) VALUES (7.5)');
  client.close();
}

/** Asks the running version to switch to the installed update (what `npm run update` does: SIGHUP). */
const switchNow = () => process.kill(supervisor!.pid(), 'SIGHUP');

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-install-'));
  data = join(root, 'data');
  await mkdir(data);
  await writeFakeTree(root, '0.1.0', [INITIAL], 'good');
  keys = join(root, 'update-keys');
  await writeFile(keys, `${Buffer.from(key.publicKey).toString('hex')}\n`);
});

afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
  await rm(root, { recursive: true, force: true });
});

describe('a good update', () => {
  test('installs into slot a, goes on trial when asked, becomes healthy and is committed; its migration ran on the old data', async () => {
    await startOld();
    const { slot } = await install(await update('0.2.0', [INITIAL, ADD_METER], 'good'));
    expect(slot).toBe('a');
    expect(readSlotState(root).trial).toMatchObject({ slot: 'a', version: '0.2.0', fromSlot: 'base', firstNewMigration: '0001_meter', attempts: 0 });
    switchNow();
    // The launcher writes the state, then the history: both are waited for (a loaded machine reads in between).
    await until(() => readSlotState(root).active === 'a' && readHistory(root).length === 2);
    expect(await running()).toBe('0.2.0');
    expect(readSlotState(root).trial).toBeNull();
    expect(readHistory(root).map((h) => h.event)).toEqual(['installed', 'committed']);
    expect(await charges()).toEqual([[1, 7.5]]);
    expect(await columns()).toContain('meter');
    // The next update goes into the other slot: the committed one is kept running.
    const next = await install(await update('0.3.0', [INITIAL, ADD_METER], 'good'));
    expect(next.slot).toBe('b');
    expect(readSlotState(root).trial).toMatchObject({ fromSlot: 'a', fromVersion: '0.2.0', firstNewMigration: null });
  });
});

describe('bad updates end with the old version running on its data', () => {
  const rolledBack = async () => {
    await until(() => readSlotState(root).trial === null && readHistory(root).some((h) => h.event === 'rolled-back'));
    await until(async () => (await running()) === '0.1.0');
    expect(readSlotState(root)).toMatchObject({ active: 'base', trial: null });
    expect(await charges()).toEqual([[1, 7.5]]);
    expect(await tables()).toEqual(['charges']);
    expect(await columns()).toEqual(['id', 'kwh']);
    return readHistory(root).find((h) => h.event === 'rolled-back')!;
  };

  test('a version that crashes at every start (after migrating): rolled back after 3 starts, the database put back', async () => {
    await startOld();
    await install(await update('0.2.0', [INITIAL, ADD_METER], 'crash'));
    await writeFile(join(data, 'running'), '');
    switchNow();
    const entry = await rolledBack();
    expect(entry.reason).toMatch(/ended with code 3 before it was healthy; the database was put back as it was before migration 0001_meter/);
    expect((await starts()).filter((v) => v === '0.2.0')).toHaveLength(3);
    expect(existsSync(join(data, 'controller.db.before-0001_meter'))).toBe(false); // it became the database again
  });

  test('a version that starts but never becomes healthy: stopped at the bound and rolled back at once', async () => {
    await startOld({ UPDATE_HEALTHY_WITHIN_S: '1.5' });
    await install(await update('0.2.0', [INITIAL, ADD_METER], 'hang'));
    await writeFile(join(data, 'running'), '');
    switchNow();
    const entry = await rolledBack();
    expect(entry.reason).toMatch(/not healthy within 1.5 s/);
    expect((await starts()).filter((v) => v === '0.2.0')).toHaveLength(1);
  });

  test('a version whose migration fails halfway: rolled back, the old schema and rows as they were', async () => {
    await startOld();
    await install(await update('0.2.0', [INITIAL, ADD_METER, BROKEN], 'good'));
    await writeFile(join(data, 'running'), '');
    switchNow();
    const entry = await rolledBack();
    expect(entry.reason).toMatch(/before it was healthy/);
  });

  test('power cuts during the trial count as starts: a version that hangs until the power fails each time is rolled back', async () => {
    await startOld({ UPDATE_HEALTHY_WITHIN_S: '600' });
    await install(await update('0.2.0', [INITIAL, ADD_METER], 'hang'));
    await writeFile(join(data, 'running'), '');
    switchNow();
    for (let cut = 1; cut <= 3; cut++) {
      await until(async () => (await starts()).filter((v) => v === '0.2.0').length === cut && readSlotState(root).trial?.attempts === cut);
      supervisor!.powerCut();
    }
    const entry = await rolledBack();
    expect(entry.reason).toMatch(/not healthy in 3 starts/);
  });
});

describe('a damaged slot state', () => {
  test('the launcher starts the version installed by hand and says why; the next install writes a sound state', async () => {
    await mkdir(join(root, 'slots'));
    await writeFile(join(root, 'slots', 'state.json'), '{"format": 1, "act');
    await startOld();
    expect(supervisor!.output()).toMatch(/the slot state cannot be read .*: starting the version installed by hand/);
    await install(await update('0.2.0', [INITIAL, ADD_METER], 'good'));
    expect(JSON.parse(await readFile(join(root, 'slots', 'state.json'), 'utf8'))).toMatchObject({ active: 'base', trial: { slot: 'a' } });
  });
});

describe('files that are refused change nothing', () => {
  test('tampered, older, unsigned by a trusted key: refused with the reason, no slot written, the old version runs on', async () => {
    await startOld();
    const good = await update('0.2.0', [INITIAL, ADD_METER], 'good');
    const tampered = Buffer.from(good);
    tampered[tampered.length - 10]! ^= 0xff;
    await expect(install(tampered)).rejects.toThrow(/does not match its signed checksum/);
    await expect(install(await update('0.0.9', [INITIAL], 'good'))).rejects.toThrow(/older versions are refused/);
    await expect(installUpdate(good, { root, trustedKeys: [newSigningKey().publicKey] })).rejects.toBeInstanceOf(UpdateRefused);
    expect(readSlotState(root)).toMatchObject({ active: 'base', trial: null });
    expect(existsSync(slotDir(root, 'a'))).toBe(false);
    expect(readHistory(root)).toEqual([]);
    expect(await running()).toBe('0.1.0');
  });

  test('a full disk while unpacking: the install fails with the reason, nothing is left, the old version runs on', async () => {
    // Without root there is no small file system to fill: a tar that may write no file above 64 KiB (ulimit -f)
    // fails in the middle of unpacking exactly as on a full card (the write is refused, tar reports it).
    const bin = join(root, 'bin');
    await mkdir(bin);
    const tar = (await promisify(execFile)('sh', ['-c', 'command -v tar'])).stdout.trim();
    await writeFile(join(bin, 'tar'), `#!/bin/sh\nulimit -f 128\nexec ${tar} "$@"\n`);
    await chmod(join(bin, 'tar'), 0o755);
    await startOld();
    const file = await update('0.2.0', [INITIAL, ADD_METER], 'good', 1024 * 1024);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      await expect(install(file)).rejects.toThrow(InstallFailed);
    } finally {
      process.env.PATH = path;
    }
    expect(readSlotState(root)).toMatchObject({ active: 'base', trial: null });
    expect(await readdir(join(root, 'slots'))).not.toContain('a.unpacking');
    expect(readHistory(root)).toMatchObject([{ event: 'install-failed', version: '0.2.0', reason: expect.stringMatching(/unpacking failed/) }]);
    expect(await running()).toBe('0.1.0');
    expect(await charges()).toEqual([[1, 7.5]]);
  });
});

describe('npm run update killed at random points of an install (kill -9, repeated)', () => {
  test('each cut leaves no trial or a complete one; the launcher then runs the old version or commits the new one', async () => {
    const file = join(root, 'update.ccupdate');
    await writeFile(file, await update('0.2.0', [INITIAL, ADD_METER], 'good', 2 * 1024 * 1024));
    const outcomes = new Set<string>();
    for (let round = 0; round < 8; round++) {
      await rm(join(root, 'slots'), { recursive: true, force: true });
      const child = execFile(process.execPath, [join(ROOT, 'dist', 'bin', 'update.js'), file, '--no-switch'], {
        env: { PATH: process.env.PATH, UPDATE_ROOT: root, UPDATE_TRUSTED_KEYS: keys },
      });
      const ended = new Promise((done) => child.once('exit', done));
      // Random points spread over the CLI's start, verification, unpacking, fsync and the state write.
      setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 1500));
      await ended;
      const state = readSlotState(root);
      if (state.trial) {
        outcomes.add('complete');
        expect(JSON.parse(await readFile(join(slotDir(root, 'a'), 'package.json'), 'utf8'))).toMatchObject({ version: '0.2.0' });
      } else outcomes.add('none');
      supervisor = supervise(env());
      await until(async () => (await running()) === (state.trial ? '0.2.0' : '0.1.0') && readSlotState(root).trial === null);
      expect(readSlotState(root).active).toBe(state.trial ? 'a' : 'base');
      expect(existsSync(join(root, 'slots', 'a.unpacking'))).toBe(false);
      await supervisor.stop();
      supervisor = undefined;
      await writeFile(join(data, 'running'), '');
      await rm(join(data, 'controller.db'), { force: true });
      await rm(join(data, 'controller.db-wal'), { force: true });
      await rm(join(data, 'controller.db-shm'), { force: true });
    }
    process.stdout.write(`install cut by kill -9 in 8 rounds: ${[...outcomes].join(', ')}\n`);
  });
});
