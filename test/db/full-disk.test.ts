import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { STORAGE_RETRY_MS } from '../../services/transaction-writer.js';
import { KNOWN, startCharger } from '../charging/scenario.js';
import { expectValidFrames, startOcppCharger, until } from '../ocpp/support.js';

/**
 * A full disk, for real: the data directory on a small tmpfs (mounting needs root, as on the controller and in CI;
 * without it this file is reported skipped), filled with a file until the file system refuses more.
 */
const mountPoint = mkdtempSync(join(tmpdir(), 'cc-full-disk-'));
const mounted = (() => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

afterAll(() => {
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Writes files until the file system is full. */
function fillDisk(): void {
  const path = join(mountPoint, 'filler');
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  // The last blocks too: smaller writes until not one byte more fits.
  const fd2 = openSync(join(mountPoint, 'filler-tail'), 'w');
  try {
    for (;;) writeSync(fd2, Buffer.alloc(512, 1));
  } catch {
    // full
  } finally {
    closeSync(fd2);
  }
}

/** Space again. */
function freeDisk(): void {
  for (const name of ['filler', 'filler-tail']) rmSync(join(mountPoint, name), { force: true });
}

describe.skipIf(!mounted)('the data directory full', () => {
  it('charging goes on, API writes answer 507 and change nothing, one event; everything is stored when space returns', async () => {
    const c = await startCharger({ dataDir: join(mountPoint, 'data'), whitelist: true });
    try {
      const before = (await c.view()).plant.energyWh as number;
      await c.act('plug');
      await c.tag(KNOWN);
      await c.act('charge');
      await c.step(10_000);
      const usersBefore = (await c.api('GET', '/v1/users')).json;
      const maxBefore = (await c.api('GET', '/v1/settings?params=MaxCurrent')).json;

      // The write-ahead log emptied first (otherwise writes reuse its blocks for a while), then the disk filled.
      await c.h.controller.database.db.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
      fillDisk();

      const refused = [
        await c.api('POST', '/v1/users', { userName: 'Alice' }),
        await c.api('PATCH', '/v1/settings', { params: [{ key: 'MaxCurrent', value: 10 }] }),
        await c.api('POST', '/v1/whitelist', { type: 'local', command: 'add', tags: [{ id: '0F0F0F0F', alias: 'spare' }] }),
      ];
      for (const res of refused) {
        expect(res.status, res.text).toBe(507);
        expect(res.json).toEqual({ success: false, cause: expect.stringContaining('storage is full: nothing was changed') });
      }
      // A commit that stored nothing needs no space: it does not count as room again.
      expect(c.h.controller.database.storage.fullSince).not.toBeNull();
      await c.h.controller.database.write(async (tx) => tx.all(sql`SELECT 1`));
      expect(c.h.controller.database.storage.fullSince).not.toBeNull();
      expect((await c.api('GET', '/v1/users')).json).toEqual(usersBefore);
      expect((await c.api('GET', '/v1/settings?params=MaxCurrent')).json).toEqual(maxBefore);

      // The charge goes on and completes while nothing can be written.
      await c.step(20_000);
      expect((await c.state()).systemState).toBe('charging');
      await c.act('unplug');
      const delivered = Math.round((await c.view()).plant.energyWh as number) - Math.round(before);
      expect(delivered).toBeGreaterThan(0);
      await c.step(STORAGE_RETRY_MS);
      expect(c.h.controller.charging.heldEffects()).toBeGreaterThan(0);

      // Said once, however many requests were refused; no request was answered 500.
      const lines = c.h.logs
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { msg: string; status?: number; event?: string });
      expect(lines.filter((l) => l.event === 'storage_full')).toHaveLength(1);
      expect(lines.filter((l) => l.status === 500)).toEqual([]);

      // Room again: the held transaction is stored at the next retry, with its energy; writes are taken again.
      freeDisk();
      await c.step(STORAGE_RETRY_MS);
      expect(c.h.controller.charging.heldEffects()).toBe(0);
      expect(c.h.controller.database.storage.fullSince).toBeNull();
      const [transaction, ...others] = (await c.api('GET', '/v1/transactions')).json;
      expect(others).toEqual([]);
      expect(transaction.consumption).toBe(delivered);
      expect((await c.api('POST', '/v1/users', { userName: 'Alice' })).status).toBe(201);
      await c.h.controller.events.settled();
      const kinds = (await c.api('GET', '/v1/events')).json.events.map((e: { kind: string }) => e.kind);
      expect(kinds.filter((k: string) => k.startsWith('storage_'))).toEqual(['storage_full', 'storage_writable']);
      expect(kinds).toContain('transaction_stopped');
      const [check] = await c.h.controller.database.db.all<{ integrity_check: string }>(sql`PRAGMA integrity_check`);
      expect(check?.integrity_check).toBe('ok');
    } finally {
      freeDisk();
      await c.h.stop();
    }
  });

  it('OCPP: the central system gets the transaction once, even when the disk filled before its answer was recorded', async () => {
    const dataDir = join(mountPoint, 'ocpp');
    mkdirSync(dataDir);
    const c = await startOcppCharger({ dataDir, whitelist: true });
    try {
      // The disk fills while the central system answers StartTransaction: the answer cannot be recorded.
      c.csms.answer('StartTransaction', () => {
        fillDisk();
        return { transactionId: 77, idTagInfo: { status: 'Accepted' } };
      });
      await c.online();
      await c.h.controller.database.db.run(sql`PRAGMA wal_checkpoint(TRUNCATE)`);
      await c.act('plug');
      await c.tag(KNOWN);
      await c.act('charge');
      await until(c, () => c.csms.calls('StartTransaction').length === 1, 'the StartTransaction');
      for (let i = 0; i < 3; i++) await c.step(STORAGE_RETRY_MS); // retries while full: nothing is sent again
      await c.act('unplug');
      await c.step(STORAGE_RETRY_MS);
      expect(c.csms.calls('StartTransaction')).toHaveLength(1);
      expect(c.csms.calls('StopTransaction')).toHaveLength(0);

      freeDisk();
      await c.step(STORAGE_RETRY_MS);
      await until(c, () => c.csms.calls('StopTransaction').length === 1, 'the StopTransaction');
      await c.step(STORAGE_RETRY_MS);
      const [start] = c.csms.calls('StartTransaction') as Array<{ meterStart: number }>;
      const stops = c.csms.calls('StopTransaction') as Array<{ transactionId: number; meterStop: number }>;
      expect(c.csms.calls('StartTransaction')).toHaveLength(1);
      expect(stops).toHaveLength(1);
      expect(stops[0]!.transactionId).toBe(77);
      const [stored] = (await c.api('GET', '/v1/transactions')).json;
      expect(stops[0]!.meterStop - start!.meterStart).toBe(stored.consumption);
      expect(stored.consumption).toBeGreaterThan(0);
      expectValidFrames(c.csms);
    } finally {
      freeDisk();
      await c.h.stop();
      await c.csms.close();
    }
  });
});
