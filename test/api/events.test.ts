import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loginProof } from '../../machines/secrets.js';
import { EVENT_PAGE_ROWS, EVENTS_KEPT } from '../../services/events.js';
import { KNOWN, OTHER, UNKNOWN, startCharger, type Charger } from '../charging/scenario.js';
import { FAILED, OPERATOR_PASSWORD, TEST_EPOCH, startHarness } from '../harness.js';

/**
 * The event log for people (GET /v1/events, services/events.ts): what happened, in the database as a bounded
 * ring, in the log with ISO 8601 times, never a secret.
 */

let c: Charger;
beforeAll(async () => {
  c = await startCharger();
});
afterAll(() => c.h.stop());

/** The events after `since` (an event id), without the ids and times. */
async function eventsSince(since: number): Promise<any[]> {
  await c.h.controller.events.settled();
  const res = await c.api('GET', '/v1/events');
  expect(res.status).toBe(200);
  return res.json.events.filter((e: any) => e.id > since).map(({ id: _id, at: _at, ...rest }: any) => rest);
}
async function lastId(): Promise<number> {
  await c.h.controller.events.settled();
  return (await c.api('GET', '/v1/events')).json.events.at(-1)?.id ?? 0;
}

describe('what is recorded', () => {
  test('tags accepted, refused and ignored, with why; the transaction they start and stop', async () => {
    const since = await lastId();
    await c.tag(UNKNOWN);
    await c.act('plug');
    await c.tag(KNOWN);
    await c.act('charge');
    await c.step(3_000);
    await c.tag(OTHER); // another known tag while charging: ignored
    await c.tag(KNOWN); // the session's tag under load: stop
    await c.act('pause');
    const state = await c.state();
    expect(state.systemState).toBe('finished');
    await c.act('unplug');
    const events = await eventsSince(since);
    const transactionId = events.find((e) => e.kind === 'transaction_started').transactionId;
    const consumption = events.find((e) => e.kind === 'transaction_stopped').consumptionWh;
    expect(consumption).toBeGreaterThan(0);
    expect(events).toEqual([
      { kind: 'tag_refused', tagId: UNKNOWN, reason: 'unknown', message: `Tag ${UNKNOWN} refused: it is not in the local whitelist` },
      { kind: 'tag_accepted', tagId: KNOWN, userId: c.userId, outcome: 'authorized', message: `Tag ${KNOWN} accepted: it authorizes charging` },
      { kind: 'transaction_started', transactionId, tagId: KNOWN, userId: c.userId, message: `Transaction ${transactionId} started by tag ${KNOWN}` },
      { kind: 'tag_ignored', tagId: OTHER, message: `Tag ${OTHER} ignored: a known tag other than the session tag was presented during a transaction` },
      { kind: 'tag_accepted', tagId: KNOWN, userId: c.userId, outcome: 'stopped', message: `Tag ${KNOWN} accepted: it stops the transaction` },
      {
        kind: 'transaction_stopped',
        transactionId,
        reason: 'Local',
        consumptionWh: consumption,
        message: `Transaction ${transactionId} stopped (Local), ${consumption} Wh`,
      },
    ]);
  });

  test('refusals say why: charging disabled, a fault, the local whitelist off', async () => {
    const since = await lastId();
    await c.settings({ chargingEnabled: false });
    await c.tag(KNOWN);
    await c.settings({ chargingEnabled: true });
    await c.sim('fault', { fault: 'cp-short' });
    await c.step(50);
    await c.tag(KNOWN);
    await c.h.http('DELETE', '/sim/fault/cp-short');
    await c.step(50);
    expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'FLLEnabled', value: 0 }] })).status).toBe(200);
    await c.tag(KNOWN);
    expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'FLLEnabled', value: 1 }] })).status).toBe(200);
    const reasons = (await eventsSince(since)).filter((e) => e.kind === 'tag_refused').map((e) => [e.reason, e.message]);
    expect(reasons).toEqual([
      ['unavailable', `Tag ${KNOWN} refused: charging is disabled`],
      ['faulted', `Tag ${KNOWN} refused: the charge point has a fault`],
      ['whitelist-off', `Tag ${KNOWN} refused: the local whitelist is off (FLLEnabled)`],
    ]);
  });

  test('faults and warnings raised and cleared, with their code', async () => {
    const since = await lastId();
    await c.sim('fault', { fault: 'cp-short' });
    await c.step(50);
    await c.sim('fault', { fault: 'meter-offline' });
    await c.step(1_100);
    await c.h.http('DELETE', '/sim/fault/cp-short');
    await c.h.http('DELETE', '/sim/fault/meter-offline');
    await c.step(1_100);
    const faults = (await eventsSince(since)).filter((e) => e.kind.startsWith('fault_'));
    expect(faults).toEqual([
      { kind: 'fault_raised', code: 'CP_STATE_E', severity: 'ERROR', message: 'Fault CP_STATE_E raised' },
      { kind: 'fault_raised', code: 'METER_NOT_RESPONDING', severity: 'WARNING', message: 'Warning METER_NOT_RESPONDING raised' },
      { kind: 'fault_cleared', code: 'CP_STATE_E', severity: 'ERROR', message: 'Fault CP_STATE_E cleared' },
      { kind: 'fault_cleared', code: 'METER_NOT_RESPONDING', severity: 'WARNING', message: 'Warning METER_NOT_RESPONDING cleared' },
    ]);
  });

  test('settings changed: which keys, by which account, never the values; an unchanged value is no event', async () => {
    const since = await lastId();
    expect(
      (
        await c.api('PATCH', '/v1/settings', {
          params: [
            { key: 'AuthTimeout', value: 45 },
            { key: 'MaxCurrent', value: 16 },
          ],
        })
      ).status,
    ).toBe(200);
    expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'AuthTimeout', value: 45 }] })).status).toBe(200);
    expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'AuthTimeout', value: 4 }] })).status).toBe(400);
    expect(await eventsSince(since)).toEqual([
      { kind: 'settings_changed', keys: ['AuthTimeout'], username: 'installer', message: 'Settings changed by installer: AuthTimeout' },
    ]);
  });

  test('logins, logouts and refused logins, with the client address; never the name or proof tried, a token or a session id', async () => {
    const since = await lastId();
    const session = await c.h.login('operator', OPERATOR_PASSWORD, '127.0.0.2');
    expect((await c.h.http('POST', '/v1/logout', { session, from: '127.0.0.2' })).status).toBe(204);
    const { json } = await c.h.http('GET', '/v1/login', { from: '127.0.0.3' });
    const proof = loginProof('not-the-password', json.token);
    const refused = await c.h.http('POST', '/v1/login', { body: { username: 'typed-a-password-here', password: proof }, from: '127.0.0.3' });
    expect(refused.status).toBe(401);
    // (The test's own installer session may log in again meanwhile: only the operator's and 127.0.0.3's here.)
    const events = (await eventsSince(since)).filter((e) => e.username === 'operator' || e.address === '127.0.0.3');
    expect(events).toEqual([
      { kind: 'login', username: 'operator', address: '127.0.0.2', message: 'operator logged in from 127.0.0.2' },
      { kind: 'logout', username: 'operator', message: 'operator logged out' },
      { kind: 'login_refused', address: '127.0.0.3', message: 'Login refused from 127.0.0.3: invalid credentials' },
    ]);
    for (const secret of [session, json.token, proof, 'typed-a-password-here', OPERATOR_PASSWORD]) {
      expect(JSON.stringify(events)).not.toContain(secret);
      expect(c.h.logs.join('')).not.toContain(secret);
    }
  });

  test('reaching the limit of failed logins is one event, not one per refused attempt', async () => {
    const since = await lastId();
    for (let i = 0; i < 8; i++) {
      const { json } = await c.h.http('GET', '/v1/login', { from: '127.0.0.4' });
      await c.h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof('wrong-password', json.token) }, from: '127.0.0.4' });
    }
    const events = await eventsSince(since);
    expect(events.map((e) => e.kind)).toEqual(['login_refused', 'login_refused', 'login_refused', 'login_refused', 'login_refused', 'login_throttled']);
    expect(events.at(-1)).toEqual({
      kind: 'login_throttled',
      address: '127.0.0.4',
      scope: 'address',
      message: 'Logins from 127.0.0.4 refused for up to a minute: too many failures',
    });
    await c.step(61_000); // the window passes, for the other tests
  });

  test('the NFC link up and down (a phone in RFID/NFC hybrid mode)', async () => {
    expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'RFIDMode', value: 1 }] })).status).toBe(200);
    const since = await lastId();
    const phone = c.h.http('POST', '/sim/phone', { body: { request: '{"path":"/login","method":"GET","authorization":"","messageID":"1"}' } });
    for (let i = 0; i < 40; i++) await c.step(250);
    expect((await phone).status).toBe(200);
    await c.step(61_000); // a minute without activity ends the link
    const kinds = (await eventsSince(since)).map((e) => e.kind).filter((k) => k.startsWith('nfc_'));
    expect(kinds).toEqual(['nfc_link_up', 'nfc_link_down']);
    expect((await c.api('PATCH', '/v1/settings', { params: [{ key: 'RFIDMode', value: 0 }] })).status).toBe(200);
  });

  test('the backend connection, as the OCPP client reports it: the URL without credentials or query', async () => {
    const since = await lastId();
    c.h.controller.events.backend('connecting', { url: 'wss://cp-42:secret-pass@cs.example.org:8443/ocpp/CP-42?authToken=tok' });
    c.h.controller.events.backend('refused', { url: 'wss://cs.example.org:8443/ocpp/CP-42', reason: 'the central system answered 401' });
    expect(await eventsSince(since)).toEqual([
      {
        kind: 'backend',
        state: 'connecting',
        url: 'wss://cs.example.org:8443/ocpp/CP-42',
        message: 'Backend connecting (wss://cs.example.org:8443/ocpp/CP-42)',
      },
      {
        kind: 'backend',
        state: 'refused',
        url: 'wss://cs.example.org:8443/ocpp/CP-42',
        reason: 'the central system answered 401',
        message: 'Backend refused (wss://cs.example.org:8443/ocpp/CP-42): the central system answered 401',
      },
    ]);
    expect(c.h.logs.join('')).not.toMatch(/secret-pass|authToken|tok\b/);
  });

  test('each event is a log line with its time in ISO 8601', async () => {
    c.h.controller.events.backend('connected');
    await c.h.controller.events.settled();
    const line = c.h.logs.map((l) => JSON.parse(l)).findLast((l) => l.event === 'backend');
    expect(line).toMatchObject({ level: 30, event: 'backend', state: 'connected', at: new Date(c.h.clock.now()).toISOString(), msg: 'Backend connected' });
    expect(line.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
});

describe('GET /v1/events', () => {
  test('operator and higher; a user gets 403, no session 401', async () => {
    await c.h.controller.accounts.set('viewer', 'user', 'viewer-password');
    const viewer = await c.h.login('viewer', 'viewer-password');
    expect(await c.h.http('GET', '/v1/events', { session: viewer })).toMatchObject({ status: 403, json: FAILED });
    expect((await c.h.http('GET', '/v1/events')).status).toBe(401);
    const operator = await c.h.login('operator', OPERATOR_PASSWORD);
    expect((await c.h.http('GET', '/v1/events', { session: operator })).status).toBe(200);
  });

  test('from and to select by time, inclusive; malformed or reversed dates are 400', async () => {
    const all = (await c.api('GET', '/v1/events')).json.events;
    expect(all.length).toBeGreaterThan(10);
    const times = all.map((e: any) => e.at);
    expect([...times].sort()).toEqual(times); // oldest first
    const middle = times[Math.floor(times.length / 2)];
    const from = (await c.api('GET', `/v1/events?from=${middle}`)).json.events;
    expect(from.every((e: any) => e.at >= middle)).toBe(true);
    expect(from[0].at).toBe(middle);
    const to = (await c.api('GET', `/v1/events?to=${middle}`)).json.events;
    expect(to.at(-1).at).toBe(middle);
    expect(from.length + to.length).toBe(all.length + all.filter((e: any) => e.at === middle).length);
    for (const bad of ['from=2026-06-01', 'to=2026-02-30T00:00:00.000Z', 'from=yesterday', `from=${times.at(-1)}&to=${times[0]}`]) {
      expect(await c.api('GET', `/v1/events?${bad}`), bad).toMatchObject({ status: 400, json: FAILED });
    }
    expect((await c.api('GET', '/v1/events?from=2099-01-01T00:00:00.000Z')).json).toEqual({ events: [] });
  });
});

describe('in the database', () => {
  test(`a bounded ring: the newest ${EVENTS_KEPT} are kept`, async () => {
    const h = await startHarness();
    try {
      const events = h.controller.events;
      for (let batch = 0; batch < 11; batch++) {
        for (let i = 0; i < 1_000; i++) events.backend('connecting', { reason: `attempt ${batch * 1_000 + i}` });
        await events.settled();
      }
      const session = await h.login();
      const kept = (await h.http('GET', '/v1/events', { session })).json.events;
      expect(kept).toHaveLength(EVENTS_KEPT);
      expect(kept.at(-1).kind).toBe('login');
      expect(kept.at(-2).reason).toBe('attempt 10999');
      expect(kept[0].reason).toBe(`attempt ${11_000 - EVENTS_KEPT + 1}`); // the login is the newest
      // Written page by page (all at the same time here, so the pages follow the ids): each event once, in order.
      expect(kept.slice(0, -1).map((e: any) => e.reason)).toEqual(Array.from({ length: EVENTS_KEPT - 1 }, (_, i) => `attempt ${11_000 - EVENTS_KEPT + 1 + i}`));
      expect(EVENTS_KEPT).toBeGreaterThan(2 * EVENT_PAGE_ROWS);
    } finally {
      await h.stop();
    }
  }, 60_000);

  test('EventLogSize: the newest that many are kept, from the write after the change on', async () => {
    const h = await startHarness();
    try {
      const session = await h.login();
      const events = h.controller.events;
      for (let i = 0; i < 2_000; i++) events.backend('connecting', { reason: `before ${i}` });
      await events.settled();
      const set = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'EventLogSize', value: 1_000 }] } });
      expect(set.status, set.text).toBe(200);
      await events.settled();
      let kept = (await h.http('GET', '/v1/events', { session })).json.events;
      expect(kept).toHaveLength(1_000); // the change itself is the newest
      expect(kept.at(-1)).toMatchObject({ kind: 'settings_changed', keys: ['EventLogSize'] });
      expect(kept[0].reason).toBe('before 1001');
      for (let i = 0; i < 10; i++) events.backend('connected', { reason: `after ${i}` });
      await events.settled();
      kept = (await h.http('GET', '/v1/events', { session })).json.events;
      expect(kept).toHaveLength(1_000);
      expect(kept.at(-1).reason).toBe('after 9');
      expect(kept[0].reason).toBe('before 1011');
      const bad = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'EventLogSize', value: 999 }] } });
      expect(bad.status).toBe(400);
    } finally {
      await h.stop();
    }
  }, 60_000);

  test('EventLogMaxAge: older events are deleted with the next write; 0 keeps them', async () => {
    const h = await startHarness();
    try {
      const session = await h.login();
      const events = h.controller.events;
      const day = 86_400_000;
      const now = h.clock.now();
      events.record({ kind: 'backend', state: 'connecting', reason: 'three days ago' }, now - 3 * day);
      events.record({ kind: 'backend', state: 'connected', reason: 'a day ago' }, now - day);
      await events.settled();
      const reasons = async () => (await h.http('GET', '/v1/events', { session })).json.events.map((e: any) => e.reason).filter(Boolean);
      expect(await reasons()).toEqual(['three days ago', 'a day ago']);
      const set = await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'EventLogMaxAge', value: 2 }] } });
      expect(set.status, set.text).toBe(200);
      await events.settled();
      expect(await reasons()).toEqual(['a day ago']);
      // An event older than the limit when it is stored (one that waited in the queue) is not kept either.
      events.record({ kind: 'backend', state: 'connected', reason: 'a year ago' }, now - 365 * day);
      events.backend('connected', { reason: 'now' });
      await events.settled();
      expect(await reasons()).toEqual(['a day ago', 'now']);
      // 0: no age limit.
      expect((await h.http('PATCH', '/v1/settings', { session, body: { params: [{ key: 'EventLogMaxAge', value: 0 }] } })).status).toBe(200);
      events.record({ kind: 'backend', state: 'connected', reason: 'a year ago' }, now - 365 * day);
      await events.settled();
      expect(await reasons()).toEqual(['a year ago', 'a day ago', 'now']);
    } finally {
      await h.stop();
    }
  });

  test('events survive a restart, with the time they happened', async () => {
    const h = await startHarness();
    await h.clock.advance(1_234);
    h.controller.events.backend('connected');
    await h.stop({ keepData: true });
    const again = await startHarness({ dataDir: h.dataDir });
    try {
      const session = await again.login();
      const stored = (await again.http('GET', '/v1/events', { session })).json.events;
      expect(stored.find((e: any) => e.kind === 'backend')).toMatchObject({
        kind: 'backend',
        state: 'connected',
        at: new Date(TEST_EPOCH + 1_234).toISOString(),
      });
    } finally {
      await again.stop();
    }
  });
});
