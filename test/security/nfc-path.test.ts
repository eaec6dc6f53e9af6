import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startHarness, type Harness } from '../harness.js';
import { nfcCall, nfcLogin, parseAnswer, phoneAt } from '../nfc/nfc.js';
import type { SimulatedPhone } from '../../drivers/pn532/sim.js';

/**
 * Issue 35 item 1: an NFC request's path is resolved as a URL resolves it and must stay under /v1. The simulator's
 * routes need no session (they are meant for this machine only): a phone must not reach them, nor the web files.
 */
let h: Harness;
let phone: SimulatedPhone;
let session: string;
beforeAll(async () => {
  h = await startHarness();
  await h.sim('plug');
  phone = await phoneAt(h);
  session = await nfcLogin(phone);
});
afterAll(() => h.stop());

const plant = async () => (await h.http('GET', '/sim')).json.plant;

describe('an NFC path that resolves outside /v1 is refused with 400 and changes nothing', () => {
  test.each([
    ['POST', '/v1/../sim/unplug', undefined],
    ['POST', '/../sim/unplug', undefined],
    ['POST', '/../sim/fault', { fault: 'contactor-welded' }],
    ['POST', '/v1/%2e%2e/sim/unplug', undefined],
    ['POST', '/%2E%2e/sim/fault', { fault: 'contactor-welded' }],
    ['POST', '/.%2e/sim/unplug', undefined],
    ['POST', '/users/../../sim/unplug', undefined],
    ['POST', '/..\\sim/unplug', undefined],
    ['GET', '/v1/../sim', undefined],
    ['GET', '/v1/%2e%2e/sim', undefined],
    ['GET', '/v1/../web/app.js', undefined],
    ['GET', '/..', undefined],
    ['GET', '/v1/..', undefined],
  ])('%s %s', async (method, path, body) => {
    const before = await plant();
    const answer = await nfcCall(phone, method, path, { session, ...(body ? { body } : {}) });
    expect(answer.statusCode).toBe(400);
    expect(answer.content).toEqual({ success: false, cause: expect.stringContaining('/v1') });
    expect(await plant()).toEqual(before);
    expect(before).toMatchObject({ vehicle: 'connected', faults: [] });
  });

  test('dot segments that stay under /v1 resolve as a URL does', async () => {
    expect((await nfcCall(phone, 'GET', '/users/../system_state', { session })).statusCode).toBe(200);
    expect((await nfcCall(phone, 'GET', '/v1/whitelist/%2e%2e/system_state', { session })).statusCode).toBe(200);
  });

  test("the simulator's phone route goes through the same rule", async () => {
    const before = await plant();
    expect(before).toMatchObject({ vehicle: 'connected' });
    const request = JSON.stringify({ path: '/v1/../sim/unplug', method: 'POST', authorization: '', messageID: 'p1' });
    const res = await h.http('POST', '/sim/phone', { body: { request } });
    expect(res.status).toBe(200);
    expect(parseAnswer(res.json.nfc.answer)).toMatchObject({ messageID: 'p1', statusCode: 400 });
    expect(await plant()).toEqual(before);
  });
});
