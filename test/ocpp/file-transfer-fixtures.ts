import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { newSigningKey } from '../../services/field-service/update-file.js';
import { createUpdateInstaller, switchModeOf } from '../../services/field-service/updates.js';
import type { Controller } from '../../bin/start-controller.js';
import { fakeUpdate, INITIAL, ADD_METER, writeFakeTree } from '../field-service/fake-versions.js';

/** A request the file store received. */
export interface StoredRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: Buffer;
}

/**
 * The fixtures of the UpdateFirmware and GetLog tests of both versions (firmware.test.ts, firmware-log-201.test.ts):
 * a local HTTP server standing in for the central system's file store, and a fake install root with the real
 * installer. Call in the test file's top level: what it made is closed and removed after each test.
 */
export function useFileTransferFixtures() {
  const key = newSigningKey();
  let servers: Server[] = [];
  let dirs: string[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    for (const d of dirs) await rm(d, { recursive: true, force: true });
    servers = [];
    dirs = [];
  });

  /** A file store: GET answers `body`, PUT keeps the upload; each answer the next of `statuses`, then 200. */
  async function fileStore(body: Buffer = Buffer.alloc(0), statuses: number[] = []) {
    const requests: StoredRequest[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        requests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body: Buffer.concat(chunks) });
        res.statusCode = statuses.shift() ?? 200;
        res.end(res.statusCode === 200 && req.method === 'GET' ? body : undefined);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { requests, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  /**
   * An install root running 0.1.0 (a fake base tree), the real installer on it, and version 0.2.0's update file.
   * `switches`: the switches the installer asked for; `of.controller`: the controller whose setting UpdateSwitchMode
   * the installer reads (as bin/controller.ts wires it), set by the test once it runs.
   */
  async function installRoot() {
    const root = await mkdtemp(join(tmpdir(), 'cc-firmware-'));
    dirs.push(root);
    await writeFakeTree(root, '0.1.0', [INITIAL], 'good');
    await writeFile(join(root, 'keys'), `${Buffer.from(key.publicKey).toString('hex')}\n`);
    const tree = join(root, 'next');
    await writeFakeTree(tree, '0.2.0', [INITIAL, ADD_METER], 'good');
    const file = await fakeUpdate(tree, key.secretKey);
    const switches: string[] = [];
    const of: { controller?: Pick<Controller, 'settings'> } = {};
    const updates = createUpdateInstaller({
      root,
      trustedKeysFile: join(root, 'keys'),
      switchMode: () => switchModeOf(of.controller!.settings),
      switchTo: (mode) => switches.push(mode),
    });
    return { root, file, updates, switches, of };
  }

  return { fileStore, installRoot };
}
