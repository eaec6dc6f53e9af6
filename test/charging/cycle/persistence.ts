/**
 * Charge-cycle scenarios: persistence of the active transaction. Run by test/charging/cycle.test.ts (in one process, so
 * that it can check that together the scenarios took every transition).
 */
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_INTERVAL_MS } from '../../../services/core/metering.js';
import { POLL_INTERVAL_MS } from '../../../services/core/supervision.js';
import { transactions as transactionsTable } from '../../../db/schema.js';
import { charging, KNOWN } from '../scenario.js';
import { charger, chargers } from './chargers.js';

describe('persistence of the active transaction', () => {
  it('on a slow disk the checkpoints waiting to be written collapse into the latest: the queue never grows', async () => {
    const c = await charger();
    await charging(c);
    await c.step(0);
    const written: number[] = [];
    const transactions = c.h.controller.transactions;
    const checkpoint = transactions.checkpoint.bind(transactions);
    transactions.checkpoint = async (record) => {
      written.push(record.meterLastWh ?? -1);
      await checkpoint(record);
    };
    // The disk is busy (a write held open) while the EV pauses and resumes five times: ten state changes.
    let release!: () => void;
    const held = c.h.controller.database.write(() => new Promise<void>((resolve) => (release = resolve)));
    let meterNow: number;
    try {
      // The clock moves on without waiting for persistence (which waits for the disk).
      for (let i = 0; i < 5; i++) {
        await c.sim('pause');
        await c.h.clock.advance(2_000);
        await c.sim('charge');
        await c.h.clock.advance(50);
      }
      expect((await c.state()).systemState).toBe('charging');
      // The first checkpoint waits for the disk; the nine after it wait as one, with the last state change's reading.
      expect(written).toHaveLength(1);
      meterNow = Math.round((await c.view()).plant.energyWh);
    } finally {
      release();
    }
    await held;
    await c.step(0);
    expect(written).toHaveLength(2);
    expect(Math.abs(written[1]! - meterNow)).toBeLessThanOrEqual(4);
    const row = (await c.h.controller.database.db.select().from(transactionsTable))[0]!;
    expect(row.meterLastWh).toBe(written[1]);
  });

  it('is checkpointed every 10 s and on every state change', async () => {
    const c = await charger();
    await charging(c);
    const row = async () => (await c.h.controller.database.db.select().from(transactionsTable))[0]!;
    const first = await row(); // written when charging began (a state change)
    await c.step(CHECKPOINT_INTERVAL_MS - POLL_INTERVAL_MS);
    expect((await row()).checkpointedAt).toBe(first.checkpointedAt);
    await c.step(2 * POLL_INTERVAL_MS);
    const second = await row();
    expect(second.checkpointedAt - first.checkpointedAt).toBeGreaterThanOrEqual(CHECKPOINT_INTERVAL_MS);
    expect(second.checkpointedAt - first.checkpointedAt).toBeLessThanOrEqual(CHECKPOINT_INTERVAL_MS + POLL_INTERVAL_MS);
    expect(second.meterLastWh - first.meterLastWh).toBeGreaterThanOrEqual(Math.floor((11040 * CHECKPOINT_INTERVAL_MS) / 3_600_000));
    expect(second.maxPowerW).toBe(11040);
    await c.step(3_000);
    await c.act('pause'); // state change: checkpoint with a fresh reading
    const third = await row();
    expect(third.meterLastWh).toBe(Math.round((await c.view()).plant.energyWh));
    expect(third.checkpointedAt).toBe(c.h.clock.now() - 10); // the pause was acted on after the 40 ms debounce
    expect(third.endedAt).toBeNull();
  });

  it('a graceful stop completes the running transaction (Reboot); the restarted controller is idle', async () => {
    const c = await charger();
    await charging(c);
    await c.step(60_000);
    const dataDir = c.h.dataDir;
    await c.h.stop({ keepData: true });
    chargers.stopped(c);
    const again = await chargers.start({ dataDir });
    const [tx] = (await again.api('GET', '/v1/transactions')).json;
    expect(tx).toMatchObject({ tagId: KNOWN, consumption: 184 });
    expect((await again.state()).systemState).toBe('idle');
    const rows = await again.h.controller.database.db.select().from(transactionsTable);
    expect(rows.map((r) => r.stopReason)).toEqual(['Reboot']);
  });
});
