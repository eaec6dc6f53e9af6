import { mkdtemp, readdir, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, test } from 'vitest';
import { inProcessRestarts } from '../../bin/restarts.js';
import { loginProof } from '../../machines/secrets.js';
import { loadConfig } from '../../services/config.js';
import { startController } from '../../services/controller.js';
import { createLogger } from '../../services/logger.js';
import { ManualClock } from '../clock.js';
import { httpRequest, OPERATOR_PASSWORD, TEST_EPOCH } from '../harness.js';

/**
 * Issue 35 item 4: an in-process restart (POST /v1/restart with HARDWARE=sim) releases everything the previous
 * controller held. 50 restarts through the endpoint, then this process's handles to controller.db and its heap are
 * compared with those after the first (after a full garbage collection: libsql releases a closed connection's file
 * once its statements are collected). Each closed controller must also leave no timer armed on its clock.
 *
 * KNOWN TO FAIL (test.fails): two causes are fixed (prom-client's default collectors and event-loop histograms,
 * about 1.5 MB of native memory a restart, now collected once per process; a closed connection's kept statements,
 * now dropped with it), but a leak remains: after 50 restarts about 18 handles to controller.db (4 after the first)
 * and about 2.5 MB more heap, while no libsql Database or Statement of a closed controller is reachable from
 * JavaScript any more (heap snapshot): native connections that are never released. Remove `.fails` once fixed.
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const RESTARTS = 50;

test.fails(`${RESTARTS} restarts hold no more database handles and heap than the first`, { timeout: 240_000 }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'cc-restarts-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, OPERATOR_PASSWORD });
  const logger = await createLogger({ logLevel: 'warn', logFormat: 'json' }, new Writable({ write: (_c, _e, done) => done() }));
  // A clock for each controller, each 6 minutes after the last (the endpoint allows 3 restarts in 15 minutes); a
  // closed controller must have left no timer on its clock.
  const clocks: ManualClock[] = [];
  const restarts = inProcessRestarts(
    (port, restart) => {
      const clock = new ManualClock(clocks.length === 0 ? TEST_EPOCH : clocks.at(-1)!.now() + 6 * 60_000);
      clocks.push(clock);
      return startController({ config: port === undefined ? config : { ...config, port }, logger, core: 'thread', clock, now: () => clock.now(), restart, showInitialPassword: () => undefined });
    },
    (err) => {
      throw err;
    },
  );
  const databaseHandles = async () => {
    let n = 0;
    for (const fd of await readdir('/proc/self/fd')) {
      const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
      if (target.startsWith(join(dataDir, 'controller.db'))) n++;
    }
    return n;
  };
  const measure = async () => {
    for (let i = 0; i < 5; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 100)); // native finalizers (the database's statements) run after it
    }
    return { handles: await databaseHandles(), heapMB: process.memoryUsage().heapUsed / 2 ** 20 };
  };
  const restartOnce = async () => {
    const { port } = restarts.current();
    const { json } = await httpRequest(port, 'GET', '/v1/login');
    const login = await httpRequest(port, 'POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, json.token) } });
    const res = await httpRequest(port, 'POST', '/v1/restart', { session: login.json.session.id });
    expect(res.status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    await restarts.settled();
    const closed = clocks.at(-2)!;
    expect(closed.pendingTimers()).toEqual([]);
    clocks.splice(0, clocks.length - 1);
  };

  await restarts.start();
  try {
    await restartOnce();
    const first = await measure();
    for (let i = 1; i < RESTARTS; i++) await restartOnce();
    const last = await measure();
    console.log(`after restart 1: ${first.handles} handles to controller.db, heap ${first.heapMB.toFixed(1)} MB; after ${RESTARTS}: ${last.handles}, ${last.heapMB.toFixed(1)} MB`);
    expect(restarts.current().port).toBeGreaterThan(0);
    expect(last.handles).toBeLessThanOrEqual(first.handles);
    // Noise of a collected heap is well under a megabyte; a leak of even 50 kB per restart shows.
    expect(last.heapMB - first.heapMB).toBeLessThan(2);
  } finally {
    await restarts.current().close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
