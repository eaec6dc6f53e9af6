import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { readSlotState, treeVersion, writeSlotState } from '../../services/field-service/slots.js';
import { INITIAL, ROOT, supervise, until, writeFakeTree } from './fake-versions.js';

/**
 * `npm run update` reaches the running controller only through the launcher (SIGHUP, passed on over IPC): the real
 * controller (this tree's dist/, the install root's base) reads the mode its installer chose from the trial
 * (bin/controller.ts) and ends; the launcher starts the update on trial.
 */

let root = '';
let supervisor: ReturnType<typeof supervise> | undefined;
afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
  await rm(root, { recursive: true, force: true });
});

test('the real controller, told by the launcher that an update was installed, switches to it in the trial mode', { timeout: 120_000 }, async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-relay-'));
  for (const entry of ['dist', 'node_modules', 'package.json', 'db', 'api']) await symlink(join(ROOT, entry), join(root, entry));
  const data = join(root, 'data');
  await mkdir(data);
  await mkdir(join(root, 'slots'));
  supervisor = supervise({
    PATH: process.env.PATH,
    UPDATE_ROOT: root,
    DATA_DIR: data,
    HOST: '127.0.0.1',
    PORT: '0',
    OPERATOR_PASSWORD: 'operator-pass',
    UPDATE_SETTLE_S: '0',
  });
  await until(() => /listening on/.test(supervisor!.output()));
  // What `npm run update -- <file> --finish-charge` leaves: the update in slot a, its trial with the chosen mode.
  await writeFakeTree(join(root, 'slots', 'a'), '99.0.0', [INITIAL], 'good');
  const base = treeVersion(root);
  writeSlotState(root, {
    format: 1,
    active: 'base',
    versions: { base, a: '99.0.0' },
    trial: {
      slot: 'a',
      version: '99.0.0',
      fromSlot: 'base',
      fromVersion: base,
      firstNewMigration: null,
      installedAt: new Date().toISOString(),
      attempts: 0,
      switchMode: 'finish-charge',
    },
  });
  process.kill(supervisor.pid(), 'SIGHUP');
  await until(async () => (await readFile(join(data, 'running'), 'utf8').catch(() => '')) === '99.0.0');
  expect(supervisor.output()).toContain('update installed: switching to it (no charge runs; mode finish-charge)');
  await until(() => readSlotState(root).active === 'a');
});
