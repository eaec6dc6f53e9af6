import { describe, expect, test } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { loginProof } from '../../machines/secrets.js';
import {
  checkSession,
  FAILURE_WINDOW_MS,
  MAX_FAILED_LOGINS,
  MAX_FAILED_LOGINS_TOTAL,
  MAX_LOGIN_CLIENTS,
  SESSION_TIMEOUT_MS,
  sessionMachine,
  STALE_TOKENS_KEPT,
  type Account,
} from '../../machines/session.js';

const operator: Account = { username: 'operator', password: 'pw-operator', role: 'operator' };

function start() {
  const clock = new SimulatedClock();
  const actor = createActor(sessionMachine, { clock }).start();
  let n = 0;
  const login = (opts: { password?: string; account?: Account | null; address?: string; token?: string | null } = {}) => {
    const token = opts.token === undefined ? `token-${++n}` : opts.token;
    if (token !== null) actor.send({ type: 'TOKEN.ISSUE', token, address: opts.address ?? '10.0.0.1' });
    const sessionId = `session-${++n}`;
    actor.send({
      type: 'LOGIN',
      proof: loginProof(opts.password ?? operator.password, token ?? 'none'),
      account: opts.account === undefined ? operator : opts.account,
      address: opts.address ?? '10.0.0.1',
      sessionId,
      at: clock.now(),
    });
    return { outcome: actor.getSnapshot().context.lastLogin, sessionId };
  };
  return { actor, clock, login };
}

describe('login', () => {
  test('valid proof with the current token starts a session bound to the address', () => {
    const { actor, clock, login } = start();
    const { outcome, sessionId } = login();
    expect(outcome).toBe('success');
    expect(actor.getSnapshot().matches({ login: 'active' })).toBe(true);
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.1', clock.now())).toEqual({
      session: { id: sessionId, username: 'operator', role: 'operator', address: '10.0.0.1', lastActivityAt: 0 },
    });
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.2', clock.now())).toEqual({ code: 1005 });
    expect(checkSession(actor.getSnapshot(), undefined, '10.0.0.1', clock.now())).toEqual({ code: 1002 });
    expect(checkSession(actor.getSnapshot(), 'other', '10.0.0.1', clock.now())).toEqual({ code: 1003 });
  });

  test('the token is valid for one attempt only, whatever its outcome', () => {
    const { actor, clock, login } = start();
    actor.send({ type: 'TOKEN.ISSUE', token: 'T', address: 'a' });
    actor.send({ type: 'LOGIN', proof: loginProof('wrong', 'T'), account: operator, address: 'a', sessionId: 's1', at: clock.now() });
    expect(actor.getSnapshot().context.lastLogin).toBe('invalid');
    // Same token again, now with the right password: refused, the token was spent.
    actor.send({ type: 'LOGIN', proof: loginProof(operator.password, 'T'), account: operator, address: 'a', sessionId: 's2', at: clock.now() });
    expect(actor.getSnapshot().context.lastLogin).toBe('staleToken');
    expect(login({ token: null, address: 'a' }).outcome).toBe('staleToken');
  });

  test('requesting a new token invalidates the previous one', () => {
    const { actor, clock } = start();
    actor.send({ type: 'TOKEN.ISSUE', token: 'first', address: 'a' });
    actor.send({ type: 'TOKEN.ISSUE', token: 'second', address: 'a' });
    actor.send({ type: 'LOGIN', proof: loginProof(operator.password, 'first'), account: operator, address: 'a', sessionId: 's', at: clock.now() });
    expect(actor.getSnapshot().context.lastLogin).toBe('staleToken');
  });

  test('unknown account and wrong password are refused alike', () => {
    const { login } = start();
    expect(login({ account: null }).outcome).toBe('invalid');
    expect(login({ password: 'nope' }).outcome).toBe('invalid');
  });

  test('the proof is accepted in upper-case hex too', () => {
    const { actor, clock } = start();
    actor.send({ type: 'TOKEN.ISSUE', token: 'T', address: 'a' });
    actor.send({ type: 'LOGIN', proof: loginProof(operator.password, 'T').toUpperCase(), account: operator, address: 'a', sessionId: 's', at: clock.now() });
    expect(actor.getSnapshot().context.lastLogin).toBe('success');
  });

  test('a new login replaces the previous session (one login at a time)', () => {
    const { actor, clock, login } = start();
    const first = login({ address: 'nfc' });
    const second = login({ address: '10.0.0.9' });
    expect(checkSession(actor.getSnapshot(), first.sessionId, 'nfc', clock.now())).toEqual({ code: 1003 });
    expect(checkSession(actor.getSnapshot(), second.sessionId, '10.0.0.9', clock.now())).toHaveProperty('session');
  });

  test('a failed login leaves the current session alone', () => {
    const { actor, clock, login } = start();
    const { sessionId } = login();
    login({ password: 'bad' });
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.1', clock.now())).toHaveProperty('session');
  });
});

describe('inactivity timeout', () => {
  test('the session expires 60 s after the last activity, and each activity restarts the 60 s', () => {
    const { actor, clock, login } = start();
    const { sessionId } = login();
    const check = () => checkSession(actor.getSnapshot(), sessionId, '10.0.0.1', clock.now());
    clock.increment(SESSION_TIMEOUT_MS - 1); // t = 59 999
    expect(check()).toHaveProperty('session');
    actor.send({ type: 'ACTIVITY', sessionId, at: clock.now() });
    // The simulated clock runs a timer with the time it was advanced to: step timer by timer.
    clock.increment(1); // t = 60 000: the timer finds the activity and re-arms for 59 999 ms
    expect(actor.getSnapshot().matches({ login: 'active' })).toBe(true);
    clock.increment(SESSION_TIMEOUT_MS - 2); // t = 119 998
    expect(actor.getSnapshot().matches({ login: 'active' })).toBe(true);
    expect(check()).toHaveProperty('session');
    clock.increment(1); // t = 119 999 = last activity + 60 s
    expect(actor.getSnapshot().matches({ login: 'expired' })).toBe(true);
    expect(check()).toEqual({ code: 1004 });
  });

  test('a session past its deadline is timed out for callers even before its timer has run', () => {
    const { actor, clock, login } = start();
    const { sessionId } = login();
    clock.increment(SESSION_TIMEOUT_MS / 2);
    actor.send({ type: 'ACTIVITY', sessionId, at: clock.now() });
    clock.increment(SESSION_TIMEOUT_MS + SESSION_TIMEOUT_MS / 2); // one coarse step past the first timer
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.1', clock.now())).toEqual({ code: 1004 });
  });

  test('a request exactly at the 60 s deadline, before the timer has run, is timed out; 1 ms earlier it is not', () => {
    const { actor, clock, login } = start();
    const { sessionId } = login();
    const snapshot = actor.getSnapshot(); // the inactivity timer has not run: the session is still active
    expect(checkSession(snapshot, sessionId, '10.0.0.1', clock.now() + SESSION_TIMEOUT_MS - 1)).toHaveProperty('session');
    expect(checkSession(snapshot, sessionId, '10.0.0.1', clock.now() + SESSION_TIMEOUT_MS)).toEqual({ code: 1004 });
    expect(checkSession(snapshot, sessionId, '10.0.0.2', clock.now() + SESSION_TIMEOUT_MS)).toEqual({ code: 1004 }); // timed out before the address counts
  });

  test('activity recorded out of order never moves the deadline back', () => {
    const { actor, clock, login } = start();
    const { sessionId } = login();
    actor.send({ type: 'ACTIVITY', sessionId, at: 30_000 });
    actor.send({ type: 'ACTIVITY', sessionId, at: 10_000 });
    expect(actor.getSnapshot().context.session?.lastActivityAt).toBe(30_000);
    clock.increment(SESSION_TIMEOUT_MS);
    clock.increment(29_999);
    expect(actor.getSnapshot().matches({ login: 'active' })).toBe(true);
    clock.increment(1);
    expect(actor.getSnapshot().matches({ login: 'expired' })).toBe(true);
  });

  test('activity with another id does not keep the session alive', () => {
    const { actor, clock, login } = start();
    const { sessionId } = login();
    clock.increment(SESSION_TIMEOUT_MS - 10);
    actor.send({ type: 'ACTIVITY', sessionId: 'someone-else', at: clock.now() });
    clock.increment(10);
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.1', clock.now())).toEqual({ code: 1004 });
  });

  test('logout ends the session at once; the old id is then unknown', () => {
    const { actor, clock, login } = start();
    const { sessionId } = login();
    actor.send({ type: 'LOGOUT', sessionId: 'not-it' });
    expect(actor.getSnapshot().matches({ login: 'active' })).toBe(true);
    actor.send({ type: 'LOGOUT', sessionId });
    expect(actor.getSnapshot().matches({ login: 'loggedOut' })).toBe(true);
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.1', clock.now())).toEqual({ code: 1003 });
  });

  test('a second login while a session is active restarts the 60 s for the new session', () => {
    const { actor, clock, login } = start();
    login();
    clock.increment(SESSION_TIMEOUT_MS / 2);
    const { sessionId } = login({ address: '10.0.0.2' });
    clock.increment(SESSION_TIMEOUT_MS / 2); // the first session's deadline
    expect(actor.getSnapshot().matches({ login: 'active' })).toBe(true);
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.2', clock.now())).toHaveProperty('session');
    clock.increment(SESSION_TIMEOUT_MS / 2 - 1);
    expect(actor.getSnapshot().matches({ login: 'active' })).toBe(true);
    clock.increment(1);
    expect(actor.getSnapshot().matches({ login: 'expired' })).toBe(true);
  });

  test('a login after expiry starts a fresh session', () => {
    const { actor, clock, login } = start();
    login();
    clock.increment(SESSION_TIMEOUT_MS);
    const { sessionId } = login();
    expect(checkSession(actor.getSnapshot(), sessionId, '10.0.0.1', clock.now())).toHaveProperty('session');
  });
});

describe('tokens per client address', () => {
  test("one address's token is neither spent nor superseded by another address", () => {
    const { actor, clock } = start();
    actor.send({ type: 'TOKEN.ISSUE', token: 'mine', address: 'a' });
    actor.send({ type: 'TOKEN.ISSUE', token: 'theirs', address: 'b' });
    actor.send({ type: 'LOGIN', proof: loginProof(operator.password, 'mine'), account: operator, address: 'b', sessionId: 's1', at: clock.now() });
    expect(actor.getSnapshot().context.lastLogin).toBe('invalid'); // b's token was 'theirs': a wrong proof for it
    actor.send({ type: 'LOGIN', proof: loginProof(operator.password, 'mine'), account: operator, address: 'a', sessionId: 's2', at: clock.now() });
    expect(actor.getSnapshot().context.lastLogin).toBe('success');
  });

  test(`a proof with one of the ${STALE_TOKENS_KEPT} latest spent or superseded tokens is recognised and not counted`, () => {
    const { actor, clock, login } = start();
    const tokens = Array.from({ length: STALE_TOKENS_KEPT + 1 }, (_, i) => `t${i}`);
    for (const token of tokens) actor.send({ type: 'TOKEN.ISSUE', token, address: 'a' });
    for (const token of tokens.slice(1, -1)) {
      actor.send({ type: 'TOKEN.ISSUE', token: 'fresh', address: 'a' });
      actor.send({ type: 'LOGIN', proof: loginProof(operator.password, token), account: operator, address: 'a', sessionId: 's', at: clock.now() });
      expect(actor.getSnapshot().context.lastLogin).toBe('staleToken');
    }
    expect(actor.getSnapshot().context.failures).toEqual([]);
    // The oldest one is forgotten: then the proof is just wrong for the current token.
    actor.send({ type: 'TOKEN.ISSUE', token: 'fresh', address: 'a' });
    actor.send({ type: 'LOGIN', proof: loginProof(operator.password, 't0'), account: operator, address: 'a', sessionId: 's', at: clock.now() });
    expect(actor.getSnapshot().context.lastLogin).toBe('invalid');
    expect(login({ address: 'a' }).outcome).toBe('success');
  });

  test('an attempt without a token checks nothing and counts nothing', () => {
    const { actor, login } = start();
    for (let i = 0; i < MAX_FAILED_LOGINS * 2; i++) expect(login({ token: null, password: 'bad' }).outcome).toBe('staleToken');
    expect(actor.getSnapshot().context.failures).toEqual([]);
    expect(login().outcome).toBe('success');
  });

  test(`memory is bounded: tokens of at most ${MAX_LOGIN_CLIENTS} addresses, the least recently active forgotten`, () => {
    const { actor, login } = start();
    for (let i = 0; i < MAX_LOGIN_CLIENTS + 50; i++) actor.send({ type: 'TOKEN.ISSUE', token: `t${i}`, address: `10.1.${i >> 8}.${i & 255}` });
    const { clients } = actor.getSnapshot().context;
    expect(clients.length).toBe(MAX_LOGIN_CLIENTS);
    expect(clients[0]!.address).toBe('10.1.0.50');
    for (let i = 0; i < 1000; i++) actor.send({ type: 'TOKEN.ISSUE', token: `again-${i}`, address: '10.1.0.60' });
    expect(actor.getSnapshot().context.clients.length).toBe(MAX_LOGIN_CLIENTS);
    expect(actor.getSnapshot().context.clients.at(-1)!.stale.length).toBe(STALE_TOKENS_KEPT);
    expect(login({ address: '10.1.0.60' }).outcome).toBe('success');
  });
});

describe('throttle', () => {
  const windowS = FAILURE_WINDOW_MS / 1000;
  test(`after ${MAX_FAILED_LOGINS} failures from an address within the window, its attempts are refused unchecked until the first is ${windowS} s old`, () => {
    const { clock, login } = start();
    for (let i = 0; i < MAX_FAILED_LOGINS; i++) {
      expect(login({ password: 'bad' }).outcome).toBe('invalid');
      clock.increment(1000);
    }
    expect(login().outcome).toBe('throttled');
    expect(login({ address: '10.0.0.2' }).outcome).toBe('success'); // another address is not
    clock.increment(FAILURE_WINDOW_MS - MAX_FAILED_LOGINS * 1000 - 1);
    expect(login().outcome).toBe('throttled');
    clock.increment(1);
    expect(login().outcome).toBe('success');
  });

  test('the record of failures stays bounded over many windows: failures older than the window are dropped', () => {
    const { actor, clock, login } = start();
    for (let window = 0; window < 5; window++) {
      for (let i = 0; i < MAX_FAILED_LOGINS_TOTAL - 1; i++) login({ password: 'bad', address: `10.5.${window}.${Math.floor(i / (MAX_FAILED_LOGINS - 1))}` });
      expect(actor.getSnapshot().context.failures.length).toBeLessThanOrEqual(MAX_FAILED_LOGINS_TOTAL);
      clock.increment(FAILURE_WINDOW_MS);
    }
    login({ password: 'bad' });
    expect(actor.getSnapshot().context.failures).toEqual([{ address: '10.0.0.1', at: clock.now() }]);
  });

  test('failures spread beyond the window do not lock', () => {
    const { clock, login } = start();
    for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) login({ password: 'bad' });
    clock.increment(FAILURE_WINDOW_MS);
    for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) login({ password: 'bad' });
    expect(login().outcome).toBe('success');
  });

  test('a success does not reset the failure count inside the window', () => {
    const { login } = start();
    for (let i = 0; i < MAX_FAILED_LOGINS - 1; i++) login({ password: 'bad' });
    expect(login().outcome).toBe('success');
    expect(login({ password: 'bad' }).outcome).toBe('invalid');
    expect(login().outcome).toBe('throttled');
  });

  test(`${MAX_FAILED_LOGINS_TOTAL} failures from all addresses within the window refuse every attempt; the record stays bounded`, () => {
    const { actor, clock, login } = start();
    for (let i = 0; i < MAX_FAILED_LOGINS_TOTAL; i++)
      expect(login({ password: 'bad', address: `10.2.0.${Math.floor(i / MAX_FAILED_LOGINS)}` }).outcome).toBe('invalid');
    expect(login({ address: '10.3.0.1' }).outcome).toBe('throttled');
    for (let i = 0; i < 100; i++) login({ password: 'bad', address: `10.4.0.${i}` });
    expect(actor.getSnapshot().context.failures.length).toBe(MAX_FAILED_LOGINS_TOTAL);
    clock.increment(FAILURE_WINDOW_MS);
    expect(login({ address: '10.3.0.1' }).outcome).toBe('success');
  });
});
