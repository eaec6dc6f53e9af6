import { describe, expect, it } from 'vitest';
import { PAIRING_DURATION_MS, pairingMachine } from '../../machines/pairing.js';
import { transitionTable } from '../../machines/transitions.js';
import { FAILED } from '../harness.js';
import { KNOWN, taken, UNKNOWN, useChargers, type Charger } from './scenario.js';

/** Pairing mode (spec 3, 4.5) through the API and the simulated reader, with the manual clock. */

const chargers = useChargers();
const charger = chargers.start;

const pair = (c: Charger) => c.api('POST', '/v1/whitelist/pairing');
const paired = (c: Charger) => c.api('GET', '/v1/whitelist/pairing');

describe('pairing mode', () => {
  it('a new tag: one beep, readable with its type, not whitelisted, authorizes nothing', async () => {
    const c = await charger();
    expect([(await pair(c)).status, (await pair(c)).json]).toEqual([200, { success: true }]);
    const none = await paired(c);
    expect([none.status, none.json]).toEqual([500, FAILED]);
    expect(none.json.cause).toMatch(/no tag has been read yet/);

    const whitelistBefore = (await c.api('GET', '/v1/whitelist?type=local')).json;
    const beeps = await c.beeps();
    await c.tag(UNKNOWN);
    expect(await c.beeps()).toBe(beeps + 1);
    expect((await c.view()).plant.lastBeep).toEqual({ count: 1, ms: 150 });
    const res = await paired(c);
    expect([res.status, res.json]).toEqual([200, { id: UNKNOWN, tagType: 'RFID' }]);
    expect((await c.api('GET', '/v1/whitelist?type=local')).json).toEqual(whitelistBefore);
    expect((await c.state()).authState).toBe('not_authorized_for_charging');

    // Pairing ended with that tag: the next one goes to the charge cycle again.
    await c.tag(KNOWN);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    expect((await paired(c)).json.id).toBe(UNKNOWN);
  });

  it('a whitelisted tag: two beeps, answered with the known whitelist data', async () => {
    const c = await charger();
    await pair(c);
    const beeps = await c.beeps();
    await c.sim('tag', { id: KNOWN.toLowerCase(), technology: 'NFC' });
    await c.step(0);
    expect(await c.beeps()).toBe(beeps + 2);
    expect((await c.view()).plant.lastBeep).toEqual({ count: 2, ms: 150 });
    expect((await paired(c)).json).toEqual({ id: KNOWN, tagType: 'RFID', userid: c.userId });
  });

  it('lasts 60 s: a tag after that authorizes as usual, and nothing is paired', async () => {
    const c = await charger();
    await pair(c);
    await c.step(PAIRING_DURATION_MS - 1);
    await pair(c); // enabling again restarts the 60 s
    await c.step(PAIRING_DURATION_MS - 1);
    await c.tag(UNKNOWN);
    expect((await paired(c)).json.id).toBe(UNKNOWN);

    await pair(c);
    expect((await paired(c)).status).toBe(500); // enabling again clears the previous tag
    await c.step(PAIRING_DURATION_MS);
    await c.tag(KNOWN);
    expect((await c.state()).authState).toBe('authorized_for_charging');
    const res = await paired(c);
    expect([res.status, res.json.cause]).toEqual([500, expect.stringMatching(/enable it with POST \/v1\/whitelist\/pairing/)]);
  });

  it('can only be enabled in idle: 500 with the reason otherwise; an enabled pairing stays on', async () => {
    const c = await charger();
    await c.tag(KNOWN);
    let res = await pair(c);
    expect([res.status, res.json]).toEqual([500, FAILED]);
    expect(res.json.cause).toMatch(/only be enabled while the charge point is idle; an authorization is waiting/);
    await c.tag(KNOWN); // withdraw
    await c.step(2000);
    expect((await pair(c)).status).toBe(200);
    await c.act('plug');
    res = await pair(c);
    expect([res.status, res.json.cause]).toEqual([500, expect.stringMatching(/the charge point is in state wait_for_auth$/)]);
    await c.tag(UNKNOWN); // still pairing: the tag is paired, not used for the vehicle
    expect((await paired(c)).json.id).toBe(UNKNOWN);
    expect((await c.state()).systemState).toBe('wait_for_auth');
  });

  it('the paired tag is gone after a restart; pairing needs a session', async () => {
    const c = await charger();
    await pair(c);
    await c.tag(UNKNOWN);
    expect((await c.h.http('GET', '/v1/whitelist/pairing')).status).toBe(401);
    expect((await c.h.http('POST', '/v1/whitelist/pairing')).status).toBe(401);
    const dataDir = c.h.dataDir;
    await c.h.stop({ keepData: true });
    chargers.stopped(c);
    const again = await charger({ dataDir });
    expect((await paired(again)).status).toBe(500);
  });

  it('together these tests took every pairing transition', () => {
    const done = taken.get('pairing') ?? new Set();
    expect(
      transitionTable(pairingMachine)
        .filter((r) => !done.has(r.key))
        .map((r) => r.key),
    ).toEqual([]);
  });
});
