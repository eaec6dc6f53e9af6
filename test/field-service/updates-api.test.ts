import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { newSigningKey } from '../../services/field-service/update-file.js';
import { createUpdateInstaller } from '../../services/field-service/updates.js';
import { startHarness, type Harness } from '../harness.js';
import { ADD_METER, fakeUpdate, INITIAL, writeFakeTree } from './fake-versions.js';

/** GET /v1/updates (role installer): the installed versions and the update history, as the installer wrote them. */

const INSTALLER = { name: 'fitter', password: 'fitter-secret-password-1' };
const open: Harness[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.stop();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

test('an installer sees the slots, the update waiting for its trial and the history; an operator is refused; no launcher, no endpoint', async () => {
  const root = await mkdtemp(join(tmpdir(), 'cc-updates-api-'));
  dirs.push(root);
  const key = newSigningKey();
  await writeFakeTree(root, '0.1.0', [INITIAL], 'good');
  await writeFile(join(root, 'keys'), `${Buffer.from(key.publicKey).toString('hex')}\n`);
  await writeFakeTree(join(root, 'next'), '0.2.0', [INITIAL, ADD_METER], 'good');
  const updates = createUpdateInstaller({ root, trustedKeysFile: join(root, 'keys'), switchMode: () => 'wait-for-idle', switchTo: () => {} });
  await updates.install(await fakeUpdate(join(root, 'next'), key.secretKey));

  const h = await startHarness({ updates });
  open.push(h);
  await h.controller.accounts.set(INSTALLER.name, 'installer', INSTALLER.password);
  const installer = await h.login(INSTALLER.name, INSTALLER.password);
  const res = await h.http('GET', '/v1/updates', { session: installer });
  expect(res.status).toBe(200);
  expect(res.json).toMatchObject({
    active: 'base',
    versions: { base: '0.1.0', a: '0.2.0' },
    trial: { slot: 'a', version: '0.2.0', fromSlot: 'base', fromVersion: '0.1.0', firstNewMigration: '0001_meter', attempts: 0 },
    history: [{ event: 'installed', version: '0.2.0', slot: 'a', fromVersion: '0.1.0' }],
  });
  expect((await h.http('GET', '/v1/updates', { session: await h.login() })).status).toBe(403);

  const plain = await startHarness();
  open.push(plain);
  expect((await plain.http('GET', '/v1/updates', { session: await plain.login() })).status).toBe(404);
});
