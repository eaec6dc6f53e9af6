import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { loginProof } from '../../machines/secrets.js';
import { FAILURE_WINDOW_MS, MAX_FAILED_LOGINS, MAX_FAILED_LOGINS_TOTAL, SESSION_TIMEOUT_MS } from '../../machines/session.js';
import { OPERATOR_PASSWORD, startHarness, type Harness } from '../harness.js';

let h: Harness;
/** ACTIVITY events the session actor received so far. */
let activityEvents = 0;
beforeAll(
  async () =>
    (h = await startHarness({
      env: { LOG_LEVEL: 'debug' }, // the request log is checked
      inspect: (e) => {
        if (e.type === '@xstate.event' && e.event.type === 'ACTIVITY') activityEvents++;
      },
    })),
);
afterAll(() => h.stop());
// Each test starts outside any throttle window.
beforeEach(() => h.clock.increment(FAILURE_WINDOW_MS + 60_000));

async function token(from?: string): Promise<string> {
  const res = await h.http('GET', '/v1/login', { from });
  expect(res.status).toBe(200);
  return res.json.token;
}

const notLoggedIn = (code: number) => ({ logged_in: false, message: expect.any(String), code });

describe('GET /v1/login', () => {
  test('answers a fresh 32-character token each time', async () => {
    const a = await token();
    const b = await token();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(b).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
  });
});

describe('POST /v1/login', () => {
  test('valid credentials: 200 with a UUID session id', async () => {
    const t = await token();
    const res = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, t) } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ logged_in: true, session: { id: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
  });

  test('wrong password and unknown user: 401 with code 1001, same body', async () => {
    const wrong = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof('nope', await token()) } });
    const unknown = await h.http('POST', '/v1/login', { body: { username: 'ghost', password: loginProof(OPERATOR_PASSWORD, await token()) } });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual(notLoggedIn(1001));
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual(wrong.json);
  });

  test('a token is spent by the attempt: replaying it fails', async () => {
    const t = await token();
    await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof('nope', t) } });
    const replay = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, t) } });
    expect(replay.status).toBe(401);
    expect(replay.json.code).toBe(1001);
  });

  test('a successful login spends the token too', async () => {
    const t = await token();
    const body = { username: 'operator', password: loginProof(OPERATOR_PASSWORD, t) };
    expect((await h.http('POST', '/v1/login', { body })).status).toBe(200);
    expect((await h.http('POST', '/v1/login', { body })).status).toBe(401);
  });

  test('requesting a new token invalidates the previous one', async () => {
    const first = await token();
    await token();
    const res = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, first) } });
    expect(res.status).toBe(401);
  });

  test('malformed bodies: 400 with 1012, 1007, 1008, 1011', async () => {
    await token();
    const none = await h.http('POST', '/v1/login');
    expect([none.status, none.json]).toEqual([400, notLoggedIn(1012)]);
    const invalidJson = await h.http('POST', '/v1/login', { rawBody: '{"username": ' });
    expect([invalidJson.status, invalidJson.json]).toEqual([400, notLoggedIn(1007)]);
    for (const body of [{}, { username: 'operator' }, { username: 1, password: 'x' }, [], 'text', { username: 'operator', password: 'not-hex' }]) {
      const res = await h.http('POST', '/v1/login', { body });
      expect([res.status, res.json]).toEqual([400, notLoggedIn(1008)]);
    }
    const large = await h.http('POST', '/v1/login', { body: { username: 'x'.repeat(5000), password: '0'.repeat(64) } });
    expect([large.status, large.json]).toEqual([400, notLoggedIn(1011)]);
  });

  test(`${MAX_FAILED_LOGINS} failures in a minute from one address refuse its logins for the rest of the minute, with the same 401 body`, async () => {
    for (let i = 0; i < MAX_FAILED_LOGINS; i++) {
      await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof('guess', await token()) } });
    }
    const right = { username: 'operator', password: loginProof(OPERATOR_PASSWORD, await token()) };
    const refused = await h.http('POST', '/v1/login', { body: right });
    expect([refused.status, refused.json]).toEqual([401, notLoggedIn(1001)]);
    h.clock.increment(FAILURE_WINDOW_MS);
    const res = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, await token()) } });
    expect(res.status).toBe(200);
  });
});

/** One login attempt from `from` with a fresh token; answers the status. */
async function attempt(from: string, password = OPERATOR_PASSWORD, username = 'operator'): Promise<number> {
  const t = await token(from);
  return (await h.http('POST', '/v1/login', { body: { username, password: loginProof(password, t) }, from })).status;
}

describe('logins under attack (issue 14 item 1)', () => {
  test('while 127.0.0.2 floods GET and POST /v1/login, a client at 127.0.0.3 logs in on every first attempt', async () => {
    let floodRequests = 0;
    let floodTokens = 0;
    let stop = false;
    const flooder = async () => {
      for (let i = 0; i < 400 && !stop; i++) {
        const { json } = await h.http('GET', '/v1/login', { from: '127.0.0.2' });
        floodTokens++;
        // A wrong password each time: a guesser. Once its failures reach the limit, it is refused unchecked.
        await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(`guess-${i}`, json.token) }, from: '127.0.0.2' });
        floodRequests += 2;
      }
    };
    const flood = Promise.all(Array.from({ length: 8 }, flooder));
    try {
      for (let i = 0; i < 10; i++) {
        const t = await token('127.0.0.3');
        const issued = floodTokens;
        while (floodTokens === issued) await new Promise((r) => setImmediate(r)); // the flood issued a token since
        const res = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, t) }, from: '127.0.0.3' });
        expect([i, res.status]).toEqual([i, 200]);
        expect((await h.http('GET', '/v1/system_state', { session: res.json.session.id, from: '127.0.0.3' })).status).toBe(200);
      }
    } finally {
      stop = true;
      await flood;
    }
    expect(floodRequests).toBeGreaterThan(20);
    // The flooder's own guesses were bounded: its address is refused, everyone else's is not.
    expect(await attempt('127.0.0.2')).toBe(401);
    expect(await attempt('127.0.0.3')).toBe(200);
  });

  test('an attempt with a superseded, spent or unknown token is not a password failure', async () => {
    for (let i = 0; i < MAX_FAILED_LOGINS + 2; i++) {
      // Superseded: a second GET /v1/login replaced it.
      const first = await token('127.0.0.4');
      await token('127.0.0.4');
      const superseded = await h.http('POST', '/v1/login', {
        body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, first) },
        from: '127.0.0.4',
      });
      expect(superseded.status).toBe(401);
      // Unknown: none was issued to this address (nor any since the last attempt).
      const unknown = await h.http('POST', '/v1/login', {
        body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, 'f'.repeat(32)) },
        from: '127.0.0.4',
      });
      expect(unknown.status).toBe(401);
    }
    // Spent: replaying the token of a successful login.
    const t = await token('127.0.0.4');
    const body = { username: 'operator', password: loginProof(OPERATOR_PASSWORD, t) };
    expect((await h.http('POST', '/v1/login', { body, from: '127.0.0.4' })).status).toBe(200);
    for (let i = 0; i < MAX_FAILED_LOGINS + 2; i++) expect((await h.http('POST', '/v1/login', { body, from: '127.0.0.4' })).status).toBe(401);
    // None of them counted: the address is not throttled.
    expect(await attempt('127.0.0.4')).toBe(200);
  });

  test('tokens are per client: a token is spent only by its own address, and another address asking for one leaves it valid', async () => {
    const mine = await token('127.0.0.5');
    await token('127.0.0.6'); // another client asks for a token
    const elsewhere = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, mine) }, from: '127.0.0.6' });
    expect(elsewhere.status).toBe(401); // not its token
    const res = await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, mine) }, from: '127.0.0.5' });
    expect(res.status).toBe(200);
    // And still valid for exactly one attempt, from its own address.
    expect(
      (await h.http('POST', '/v1/login', { body: { username: 'operator', password: loginProof(OPERATOR_PASSWORD, mine) }, from: '127.0.0.5' })).status,
    ).toBe(401);
  });

  test(`password guessing is bounded: ${MAX_FAILED_LOGINS} failed checks a minute per address (sliding), others unaffected`, async () => {
    const before = h.logs.length;
    for (let i = 0; i < MAX_FAILED_LOGINS; i++) {
      expect(await attempt('127.0.0.7', `guess-${i}`)).toBe(401);
      h.clock.increment(1000);
    }
    // Refused unchecked, even the right password, until the first failure is a minute old.
    expect(await attempt('127.0.0.7')).toBe(401);
    expect(await attempt('127.0.0.8')).toBe(200);
    h.clock.increment(FAILURE_WINDOW_MS - MAX_FAILED_LOGINS * 1000 - 1);
    expect(await attempt('127.0.0.7')).toBe(401); // 1 ms before the first failure is a minute old
    h.clock.increment(1);
    expect(await attempt('127.0.0.7', 'guess-again')).toBe(401); // one check again: a failure
    expect(await attempt('127.0.0.7')).toBe(401); // and it is the fifth within the minute again
    const warnings = h.logs
      .slice(before)
      .map((l) => JSON.parse(l))
      .filter((l) => l.level === 40);
    expect(warnings.map((w) => [w.address, w.msg])).toEqual([
      ['127.0.0.7', 'Logins from 127.0.0.7 refused for up to a minute: too many failures'],
      ['127.0.0.7', 'Logins from 127.0.0.7 refused for up to a minute: too many failures'],
    ]);
  });

  test(`and overall: ${MAX_FAILED_LOGINS_TOTAL} failed checks a minute from all addresses refuse every login until the first is a minute old`, async () => {
    const addresses = Array.from({ length: MAX_FAILED_LOGINS_TOTAL / MAX_FAILED_LOGINS }, (_, i) => `127.0.1.${i + 1}`);
    for (const address of addresses) for (let i = 0; i < MAX_FAILED_LOGINS; i++) expect(await attempt(address, `guess-${i}`)).toBe(401);
    expect(await attempt('127.0.2.1')).toBe(401);
    expect(
      h.logs
        .map((l) => JSON.parse(l))
        .filter((l) => l.level === 40)
        .map((l) => l.msg),
    ).toContain('Logins from every address refused for up to a minute: too many failures (the last from 127.0.1.6)');
    h.clock.increment(FAILURE_WINDOW_MS);
    expect(await attempt('127.0.2.1')).toBe(200);
  });
});

describe('sessions', () => {
  test('every call but /v1/login needs a session: 401 with 1002', async () => {
    for (const [method, path] of [
      ['GET', '/v1/system_state'],
      ['POST', '/v1/logout'],
      ['GET', '/v1/users'],
      ['GET', '/v1/whitelist?type=local'],
      ['GET', '/v1/map'],
      ['GET', '/v1/transactions'],
      ['GET', '/v1/messages'],
      ['GET', '/v1/no-such-endpoint'],
    ] as const) {
      const res = await h.http(method, path);
      expect([method, path, res.status, res.json]).toEqual([method, path, 401, notLoggedIn(1002)]);
    }
  });

  test('an unknown id: 401 with 1003', async () => {
    const res = await h.http('GET', '/v1/system_state', { session: '00000000-0000-4000-8000-000000000000' });
    expect([res.status, res.json]).toEqual([401, notLoggedIn(1003)]);
  });

  test('60 s without a call: 401 with 1004; each call restarts the 60 s', async () => {
    const session = await h.login();
    h.clock.increment(SESSION_TIMEOUT_MS - 1);
    expect((await h.http('GET', '/v1/system_state', { session })).status).toBe(200);
    h.clock.increment(SESSION_TIMEOUT_MS - 1);
    expect((await h.http('GET', '/v1/messages', { session })).status).toBe(200);
    h.clock.increment(SESSION_TIMEOUT_MS);
    const res = await h.http('GET', '/v1/system_state', { session });
    expect([res.status, res.json]).toEqual([401, notLoggedIn(1004)]);
  });

  test('calls less than a second apart: the 60 s run from the latest one, recorded by one event per second', async () => {
    const session = await h.login();
    const before = activityEvents;
    for (let ms = 0; ms < 900; ms += 100) {
      h.clock.increment(100);
      expect((await h.http('GET', '/v1/system_state', { session })).status).toBe(200);
    }
    // Nine calls within the first second after the login: recorded by one event when the second is over.
    expect(activityEvents - before).toBe(0);
    h.clock.increment(SESSION_TIMEOUT_MS - 1); // 1 ms before 60 s after the latest call (at 900 ms)
    expect(activityEvents - before).toBe(1);
    const probe = await h.http('GET', '/v1/system_state', { session, from: '127.0.0.9' }); // another address: no activity
    expect(probe.json.code).toBe(1005); // still valid
    h.clock.increment(1);
    const res = await h.http('GET', '/v1/system_state', { session });
    expect([res.status, res.json]).toEqual([401, notLoggedIn(1004)]);
  });

  test('a failed call (no session) is not activity; a 404 with a session is', async () => {
    const session = await h.login();
    h.clock.increment(SESSION_TIMEOUT_MS - 1);
    expect((await h.http('GET', '/v1/nothing-here', { session })).status).toBe(404);
    h.clock.increment(SESSION_TIMEOUT_MS - 1);
    expect((await h.http('GET', '/v1/system_state', { session })).status).toBe(200);
  });

  test('the session is bound to the client address: another address gets 1005', async () => {
    const session = await h.login('operator', OPERATOR_PASSWORD, '127.0.0.1');
    const res = await h.http('GET', '/v1/system_state', { session, from: '127.0.0.2' });
    expect([res.status, res.json]).toEqual([401, notLoggedIn(1005)]);
    expect((await h.http('GET', '/v1/system_state', { session, from: '127.0.0.1' })).status).toBe(200);
  });

  test('one login at a time: a new login invalidates the previous session', async () => {
    const first = await h.login('operator', OPERATOR_PASSWORD, '127.0.0.3');
    const second = await h.login('operator', OPERATOR_PASSWORD, '127.0.0.4');
    const old = await h.http('GET', '/v1/system_state', { session: first, from: '127.0.0.3' });
    expect([old.status, old.json]).toEqual([401, notLoggedIn(1003)]);
    expect((await h.http('GET', '/v1/system_state', { session: second, from: '127.0.0.4' })).status).toBe(200);
  });

  test('POST /v1/logout: 204 without body, then the id is invalid', async () => {
    const session = await h.login();
    const res = await h.http('POST', '/v1/logout', { session });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    const after = await h.http('GET', '/v1/system_state', { session });
    expect([after.status, after.json]).toEqual([401, notLoggedIn(1003)]);
    expect((await h.http('POST', '/v1/logout', { session })).status).toBe(401);
  });

  test('a login account of any role can log in', async () => {
    await h.controller.accounts.set('installer-1', 'installer', 'installer-pass');
    const session = await h.login('installer-1', 'installer-pass');
    expect((await h.http('GET', '/v1/system_state', { session })).status).toBe(200);
  });
});

test('no password, token, proof or session id ever reaches the log', async () => {
  const t = await token();
  const proof = loginProof(OPERATOR_PASSWORD, t);
  const res = await h.http('POST', '/v1/login', { body: { username: 'operator', password: proof } });
  const session = res.json.session.id as string;
  await h.http('GET', '/v1/system_state', { session });
  await h.http('POST', '/v1/logout', { session });
  const log = h.logs.join('');
  expect(log).toContain('"path":"/v1/login"');
  for (const secret of [OPERATOR_PASSWORD, t, proof, session]) expect(log).not.toContain(secret);
});
