import { describe, expect, it } from 'vitest';
import { POLL_INTERVAL_MS } from '../../services/core/supervision.js';
import { KNOWN, useChargers, type Charger } from './scenario.js';

const charger = useChargers().start;

const register = async (c: Charger) => (await c.view()).plant.energyWh as number;

describe('metering: a transaction counts only energy read after its start', () => {
  it('meter offline over an unplug and a new start: nothing of the previous session is billed to the next; the gaps are stated', async () => {
    const c = await charger();
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await c.step(10_000);

    // The meter stops answering while the first session charges on, and that session ends unmetered.
    await c.sim('fault', { fault: 'meter-offline' });
    await c.step(POLL_INTERVAL_MS);
    const firstLastReadAt = c.h.clock.now() - POLL_INTERVAL_MS;
    await c.step(20_000);
    await c.act('unplug');

    // A new session starts while the meter is still offline; energy flows before the meter answers again.
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    const secondStart = (await c.state()).transaction.transactionStart as string;
    const atSecondStart = await register(c);
    await c.step(5_000);
    await c.h.http('DELETE', '/sim/fault/meter-offline');
    await c.step(POLL_INTERVAL_MS);
    const firstReading = await register(c);
    const firstReadingAt = c.h.clock.now();
    await c.step(10_000);
    const live = (await c.state()).transaction;
    const now = await register(c);
    // The live figure counts from the first reading after the start, never from the old one.
    expect(live.consumption).toBeLessThanOrEqual(Math.round(now - atSecondStart));
    expect(Math.abs(live.consumption - (now - firstReading))).toBeLessThanOrEqual(4); // one poll's worth at 11 kW
    await c.act('unplug');

    const [first, second] = (await c.api('GET', '/v1/transactions')).json;
    // The first session: metered until its last reading; the rest of it is stated as unmetered.
    expect(first.unmetered).toEqual([{ from: expect.any(String), to: first.endTransaction }]);
    expect(Date.parse(first.unmetered[0].from)).toBeGreaterThanOrEqual(firstLastReadAt - POLL_INTERVAL_MS);
    expect(Date.parse(first.unmetered[0].from)).toBeLessThanOrEqual(firstLastReadAt);
    // The second: from its first reading (when the meter answered again) to its end.
    expect(second.startTransaction).toBe(secondStart);
    expect(second.unmetered).toEqual([{ from: secondStart, to: expect.any(String) }]);
    expect(Date.parse(second.unmetered[0].to)).toBeGreaterThan(Date.parse(secondStart) + POLL_INTERVAL_MS);
    expect(Date.parse(second.unmetered[0].to)).toBeLessThanOrEqual(firstReadingAt);
    const end = await register(c);
    expect(second.consumption).toBeLessThanOrEqual(Math.round(end - atSecondStart));
    expect(Math.abs(second.consumption - (end - firstReading))).toBeLessThanOrEqual(4);
    expect(second.consumption).toBeGreaterThan(0);
  });

  it('a transaction metered from start to end states no gap', async () => {
    const c = await charger();
    await c.act('plug');
    const before = await register(c);
    await c.tag(KNOWN);
    await c.act('charge');
    await c.step(30_000);
    await c.act('unplug');
    const [t] = (await c.api('GET', '/v1/transactions')).json;
    expect(t.unmetered).toBeUndefined();
    expect(t.consumption).toBe(Math.round(await register(c)) - Math.round(before));
  });
});
