import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { MAX_UPDATE_FILE_BYTES } from '../../services/field-service/update-file.js';
import { newSigningKey } from '../../services/field-service/update-file.js';
import { createUpdateInstaller, type UpdateInstaller } from '../../services/field-service/updates.js';
import { startHarness, type Harness, type HttpResult } from '../harness.js';
import { ADD_METER, fakeUpdate, INITIAL, until, writeFakeTree } from './fake-versions.js';

/**
 * POST /v1/updates (issue #32, the web interface's way in): an update file uploaded as the raw body, role installer,
 * received into a temporary file under the install root and installed by the installer `npm run update` uses. A
 * refused file, a body over the limit and a role too low change nothing and leave no file behind.
 */

const INSTALLER = { name: 'fitter', password: 'fitter-secret-password-1' };
const key = newSigningKey();
let root: string;
let switches: number;
let updates: UpdateInstaller;
let h: Harness;
let installer: string;
let good: Uint8Array;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'cc-updates-upload-'));
  await writeFakeTree(root, '0.1.0', [INITIAL], 'good');
  await writeFile(join(root, 'keys'), `${Buffer.from(key.publicKey).toString('hex')}\n`);
  await writeFakeTree(join(root, 'next'), '0.2.0', [INITIAL, ADD_METER], 'good');
  good = await fakeUpdate(join(root, 'next'), key.secretKey);
  switches = 0;
  updates = createUpdateInstaller({ root, trustedKeysFile: join(root, 'keys'), switchMode: () => 'wait-for-idle', switchTo: () => switches++ });
  h = await startHarness({ updates });
  await h.controller.accounts.set(INSTALLER.name, 'installer', INSTALLER.password);
  installer = await h.login(INSTALLER.name, INSTALLER.password);
});
afterEach(async () => {
  await h.stop();
  await rm(root, { recursive: true, force: true });
});

const upload = (file: Uint8Array | string, session = installer) =>
  h.http('POST', '/v1/updates', { session, rawBody: Buffer.from(file), headers: { 'content-type': 'application/octet-stream' } });
const status = async () => (await h.http('GET', '/v1/updates', { session: installer })).json;
/** Nothing installed, nothing recorded, no file left in the slots folder. */
async function expectNothingChanged() {
  expect(await status()).toMatchObject({ active: 'base', versions: { base: '0.1.0' }, trial: null, history: [] });
  expect(existsSync(join(root, 'slots')) ? await readdir(join(root, 'slots')) : []).toEqual([]);
  expect(switches).toBe(0);
}

/**
 * Opens an upload announced as `length` bytes (or chunked) and sends nothing yet: `answered` settles with the
 * controller's answer, which may come before the whole body (it closes the connection then, so a later error on
 * the request is expected and ignored).
 */
function openUpload(session: string | undefined, length: number | 'chunked'): { req: ClientRequest; answered: Promise<HttpResult> } {
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (session) headers.authorization = session;
  if (length !== 'chunked') headers['content-length'] = String(length);
  let req!: ClientRequest;
  const answered = new Promise<HttpResult>((resolve, reject) => {
    req = request({ host: '127.0.0.1', port: h.controller.port, method: 'POST', path: '/v1/updates', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (t: string) => (text += t));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
  });
  return { req, answered };
}

/** Sends `head` of a body and never the rest: a response proves the endpoint answered before reading the body. */
async function partialUpload(session: string | undefined, length: number | 'chunked', head = Buffer.from('CCUPDATE1\n')): Promise<HttpResult> {
  const { req, answered } = openUpload(session, length);
  req.write(head);
  try {
    return await answered;
  } finally {
    req.destroy();
  }
}

describe('POST /v1/updates', () => {
  test('a good file is installed into the free slot for trial, the switch is asked for, and the history shows it', async () => {
    const res = await upload(good);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ success: true, version: '0.2.0', slot: 'a', fromVersion: '0.1.0', switchesWhenIdle: true });
    expect(switches).toBe(1);
    expect(await status()).toMatchObject({
      active: 'base',
      versions: { base: '0.1.0', a: '0.2.0' },
      trial: { slot: 'a', version: '0.2.0', fromVersion: '0.1.0', attempts: 0 },
      history: [{ event: 'installed', version: '0.2.0', slot: 'a', fromVersion: '0.1.0' }],
    });
    expect(existsSync(join(root, 'slots', 'a', 'dist', 'bin', 'controller.js'))).toBe(true);
    expect(existsSync(updates.uploadFile)).toBe(false);
    // While it waits for its trial, another upload is refused before its body is read.
    const again = await partialUpload(installer, good.length);
    expect(again.status).toBe(409);
    expect(again.json.cause).toContain('0.2.0');
  });

  test('refused files answer 400 with the reason and change nothing', async () => {
    const tampered = Buffer.from(good);
    tampered[tampered.length - 10]! ^= 0xff;
    const other = newSigningKey();
    const foreign = await fakeUpdate(join(root, 'next'), other.secretKey);
    await writeFakeTree(join(root, 'old'), '0.0.9', [INITIAL], 'good');
    const older = await fakeUpdate(join(root, 'old'), key.secretKey);
    const cases: Array<[Uint8Array | string, RegExp]> = [
      ['just some bytes', /not an update file/i],
      [Buffer.concat([Buffer.from('CCUPDATE1\n'), Buffer.from('x'.repeat(100))]), /unsigned|cut short/i],
      [tampered, /payload|checksum|damaged/i],
      [foreign, /trusted|signature/i],
      [older, /0\.0\.9/],
    ];
    for (const [file, reason] of cases) {
      const res = await upload(file);
      expect(res.status, res.text).toBe(400);
      expect(res.json.cause).toMatch(reason);
      await expectNothingChanged();
    }
  });

  test(`a body over ${MAX_UPDATE_FILE_BYTES / 1024 / 1024} MiB is refused (announced or streamed) and leaves no file`, async () => {
    const announced = await partialUpload(installer, MAX_UPDATE_FILE_BYTES + 1);
    expect(announced.status).toBe(400);
    expect(announced.json.cause).toContain(`larger than ${MAX_UPDATE_FILE_BYTES} bytes`);
    await expectNothingChanged();

    // Chunked (no length announced): refused as the limit is passed, the part received removed.
    const piece = Buffer.alloc(1024 * 1024, 7);
    const { req, answered } = openUpload(installer, 'chunked');
    let sent = 0;
    const more = () => {
      while (sent <= MAX_UPDATE_FILE_BYTES) {
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', more);
      }
      req.end();
    };
    more();
    const res = await answered;
    req.destroy();
    expect(res.status).toBe(400);
    expect(res.json.cause).toContain(`larger than ${MAX_UPDATE_FILE_BYTES} bytes`);
    await expectNothingChanged();
  }, 120_000);

  test('a role below installer is refused with 403 and no session with 401, before the body is read', async () => {
    await h.controller.accounts.set('driver', 'user', 'driver-password-1');
    for (const login of [() => h.login('driver', 'driver-password-1'), () => h.login()]) {
      const res = await partialUpload(await login(), good.length);
      expect(res.status).toBe(403);
      expect(res.json.cause).toContain('installer');
    }
    const none = await partialUpload(undefined, good.length);
    expect(none.status).toBe(401);
    installer = await h.login(INSTALLER.name, INSTALLER.password);
    await expectNothingChanged();
  });

  test('an upload whose session ends while it arrives is refused with 401 at its next piece, and its part removed', async () => {
    const { req, answered } = openUpload(installer, 'chunked');
    req.write(good.subarray(0, 1000));
    await until(() => existsSync(updates.uploadFile));
    await h.login(); // another login ends the installer's session
    req.write(good.subarray(1000, 2000));
    const res = await answered;
    req.destroy();
    expect(res.status).toBe(401);
    expect(res.json.code).toBe(1003);
    installer = await h.login(INSTALLER.name, INSTALLER.password);
    await expectNothingChanged();
  });

  test('an empty body is refused', async () => {
    const res = await h.http('POST', '/v1/updates', { session: installer, headers: { 'content-length': '0' } });
    expect(res.status).toBe(400);
    expect(res.json.cause).toContain('no body');
    await expectNothingChanged();
  });

  test('the API document lists it: role installer, the raw file as the body', async () => {
    const doc = (await h.controller.document()) as { paths: Record<string, Record<string, any>> };
    const post = doc.paths['/v1/updates']!.post;
    expect(post['x-role']).toBe('installer');
    expect(post.requestBody).toMatchObject({ required: true, content: { 'application/octet-stream': { schema: { type: 'string' } } } });
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '409']));
  });

  test('without the launcher there is no endpoint', async () => {
    const plain = await startHarness();
    try {
      const res = await plain.http('POST', '/v1/updates', { session: await plain.login(), rawBody: Buffer.from(good) });
      expect(res.status).toBe(404);
    } finally {
      await plain.stop();
    }
  });
});
