import { afterAll, describe, expect, it, test } from 'vitest';
import { transition } from 'xstate';
import { loginProof } from '../../machines/secrets.js';
import { checkSession, sessionMachine, type SessionEvent, type SessionSnapshot } from '../../machines/session.js';
import { OPERATOR_PASSWORD, startHarness, type Harness } from '../harness.js';
import { SessionSpec } from './invariants/session.js';
import { CoverageRecorder, planPaths, writeReport } from './model.js';

/**
 * Model-based tests of the login/session actor: paths generated from machines/session.ts, executed through
 * GET/POST /v1/login, API calls and POST /v1/logout with the manual clock.
 *
 * Two client addresses: A (127.0.0.1), which asks for tokens (T1, T2, …) and tries every kind of login, and B
 * (127.0.0.4), a second client with a token of its own (U1) that logs in. Time in the model is relative to the latest
 * successful login (LOGIN at 0, ACTIVITY at 30 s). The inactivity timer is offered only while no failure is
 * recorded: so time never passes in a path once a failure exists, and every recorded failure lies within the
 * window for model and controller alike (the window's time rules are tested in test/machines and test/api).
 * After every step the session is probed from a third address: 1005 means it is valid, 1004 expired, 1003 gone;
 * such a refused call records no activity, so probing does not change what it observes.
 */

const OPERATOR = { username: 'operator', password: OPERATOR_PASSWORD, role: 'operator' as const };
const ACTIVITY_AT = 30_000;
const REAL_ADDRESS: Record<string, string> = { A: '127.0.0.1', B: '127.0.0.4' };
/** Tokens each model address asks for at most (A: five failures, a throttled attempt and one more). */
const TOKENS = { A: { prefix: 'T', max: 7 }, B: { prefix: 'U', max: 1 } } as const;

/** A LOGIN event of the model, with what the executor needs to send it for real (ignored by the machine). */
type ModelLogin = Extract<SessionEvent, { type: 'LOGIN' }> & { model: { password: string; token: string } };

const clientOf = (s: SessionSnapshot, address: string) => s.context.clients.find((c) => c.address === address);

/** How many tokens the model address has asked for: the number in its newest token's name. */
function tokensIssued(s: SessionSnapshot, address: 'A' | 'B'): number {
  const client = clientOf(s, address);
  const names = client ? [...client.stale, ...(client.token ? [client.token] : [])] : [];
  return Math.max(0, ...names.map((name) => Number(name.slice(1))));
}

function login(address: 'A' | 'B', password: string, token: string, account: typeof OPERATOR | null = OPERATOR): ModelLogin {
  return { type: 'LOGIN', proof: loginProof(password, token), account, address, sessionId: 'S', at: 0, model: { password, token } };
}

function modelEvents(s: SessionSnapshot): SessionEvent[] {
  const { context } = s;
  const events: SessionEvent[] = [];
  for (const address of ['A', 'B'] as const) {
    const issued = tokensIssued(s, address);
    if (issued < TOKENS[address].max) events.push({ type: 'TOKEN.ISSUE', token: `${TOKENS[address].prefix}${issued + 1}`, address });
  }
  const a = clientOf(s, 'A');
  if (a?.token) events.push(login('A', OPERATOR_PASSWORD, a.token), login('A', 'wrong-password', a.token), login('A', OPERATOR_PASSWORD, a.token, null));
  else events.push(login('A', OPERATOR_PASSWORD, 'none'));
  if (a && a.stale.length > 0) events.push(login('A', OPERATOR_PASSWORD, a.stale.at(-1)!));
  const b = clientOf(s, 'B');
  if (b?.token) events.push(login('B', OPERATOR_PASSWORD, b.token));
  if (context.session) events.push({ type: 'LOGOUT', sessionId: 'S' }, { type: 'LOGOUT', sessionId: 'X' });
  if (s.matches({ login: 'active' }) && context.failures.length === 0) {
    if (context.session!.lastActivityAt < ACTIVITY_AT) events.push({ type: 'ACTIVITY', sessionId: 'S', at: ACTIVITY_AT });
    events.push({ type: 'xstate.after.inactivity.session.login.active' } as never);
  }
  return events;
}

const { paths, candidates } = planPaths(sessionMachine, { events: modelEvents });
const coverage = new CoverageRecorder();

interface Real {
  /** The real token behind each model token name. */
  tokens: Record<string, string>;
  session: string | null;
  /** The real client address the session is bound to. */
  sessionAddress: string;
  /** Clock time of the latest successful login (model time 0). */
  base: number;
}

/** A model login as the independent oracle sees it (invariants/session.ts). */
function attemptOf(event: ModelLogin, address: string, at: number, sessionId?: string) {
  const { password, token } = event.model;
  return {
    address,
    token: token === 'none' ? null : token,
    passwordRight: password === OPERATOR_PASSWORD,
    accountExists: event.account !== null,
    at,
    ...(sessionId ? { sessionId } : {}),
  };
}

async function execute(h: Harness, real: Real, spec: SessionSpec, before: SessionSnapshot, after: SessionSnapshot, event: SessionEvent): Promise<void> {
  const type = event.type as string;
  const at = `${JSON.stringify({ ...event, model: undefined })}`;
  if (type.startsWith('xstate.after.inactivity')) return h.clock.advance(real.base + before.context.timerDueAt - h.clock.now());
  switch (event.type) {
    case 'TOKEN.ISSUE':
      real.tokens[event.token] = (await h.http('GET', '/v1/login', { from: REAL_ADDRESS[event.address] })).json.token;
      spec.token(REAL_ADDRESS[event.address]!, event.token);
      return;
    case 'LOGIN': {
      const { password, token } = (event as ModelLogin).model;
      const username = event.account ? 'operator' : 'ghost';
      const from = REAL_ADDRESS[event.address]!;
      const res = await h.http('POST', '/v1/login', { body: { username, password: loginProof(password, real.tokens[token] ?? 'no-such-token') }, from });
      expect({ at, status: res.status }).toEqual({ at, status: after.context.lastLogin === 'success' ? 200 : 401 });
      expect({ at, broken: spec.login(attemptOf(event as ModelLogin, from, h.clock.now(), res.json?.session?.id), res.status) }).toEqual({ at, broken: [] });
      if (res.status === 200) {
        real.session = res.json.session.id;
        real.sessionAddress = from;
        real.base = h.clock.now();
      }
      return;
    }
    case 'ACTIVITY': {
      await h.clock.advance(real.base + event.at - h.clock.now());
      const res = await h.http('GET', '/v1/messages', { session: real.session!, from: real.sessionAddress });
      expect(res.status).toBe(200);
      expect({ at, broken: spec.call(real.session!, real.sessionAddress, h.clock.now(), res.status === 200 ? 0 : res.json.code) }).toEqual({ at, broken: [] });
      return;
    }
    case 'LOGOUT': {
      const id = event.sessionId === 'S' ? real.session! : '00000000-0000-4000-8000-000000000000';
      const res = await h.http('POST', '/v1/logout', { session: id, from: real.sessionAddress });
      const expected = event.sessionId === 'S' && before.matches({ login: 'active' }) ? 204 : 401;
      expect({ at, status: res.status }).toEqual({ at, status: expected });
      expect({ at, broken: spec.logout(id, real.sessionAddress, h.clock.now(), res.status) }).toEqual({ at, broken: [] });
      return;
    }
  }
}

/** A step as the test's name shows it: `LOGIN A (wrong-password, T1)`, `TOKEN.ISSUE B`, `after inactivity`. */
function stepName(event: SessionEvent): string {
  if (event.type === 'TOKEN.ISSUE') return `TOKEN.ISSUE ${event.address}`;
  if (event.type === 'LOGIN') {
    const { password, token } = (event as ModelLogin).model;
    return `LOGIN ${event.address} (${event.account ? '' : 'unknown user, '}${password === OPERATOR_PASSWORD ? 'password' : password}, ${token})`;
  }
  return event.type.replace('xstate.after.', 'after ').replace(/\.session\..*$/, '');
}

describe(`session, ${paths.length} generated paths`, () => {
  it.each(
    paths.map(
      (p) =>
        [
          p.steps
            .slice(1)
            .map((s) => stepName(s.event as SessionEvent))
            .join(' → ') || '(initial)',
          p,
        ] as const,
    ),
  )('%s', async (_name, path) => {
    const h = await startHarness({ inspect: coverage.inspect });
    try {
      const real: Real = { tokens: {}, session: null, sessionAddress: REAL_ADDRESS.A!, base: h.clock.now() };
      const spec = new SessionSpec();
      let model = path.steps[0]!.state as SessionSnapshot;
      for (const [i, step] of path.steps.slice(1).entries()) {
        const [next] = transition(sessionMachine, model, step.event);
        await execute(h, real, spec, model, next, step.event);
        model = next;
        const at = `step ${i + 1}: ${JSON.stringify(step.event)}`;
        if (real.session) {
          const probe = await h.http('GET', '/v1/system_state', { session: real.session, from: '127.0.0.2' });
          const expected = model.matches({ login: 'active' }) ? 1005 : model.matches({ login: 'expired' }) ? 1004 : 1003;
          expect({ at, code: probe.json.code }).toEqual({ at, code: expected });
          expect({ at, broken: spec.call(real.session, '127.0.0.2', h.clock.now(), probe.json.code) }).toEqual({ at, broken: [] });
        }
        // One session at a time: every session a later login replaced (or a logout ended) is gone.
        for (const gone of spec.endedSessions()) {
          const probe = await h.http('GET', '/v1/system_state', { session: gone, from: '127.0.0.2' });
          expect({ at, gone, code: probe.json.code }).toEqual({ at, gone, code: 1003 });
        }
      }
    } finally {
      await h.stop();
    }
  });
});

/**
 * The oracle over every candidate path on the machine alone, with the API's session check (checkSession) and each
 * login's outcome as the controller answers them; times as the executor lets them pass (a login now, the call 30 s
 * after the latest login, the inactivity timer when due); each login gets its own session id.
 */
describe(`session alone against the oracle, ${candidates.length} paths`, () => {
  test('breaks no invariant', () => {
    const failures: string[] = [];
    const code = (s: SessionSnapshot, id: string, address: string, now: number) => {
      const r = checkSession(s, id, address, now);
      return 'session' in r ? 0 : r.code;
    };
    for (const path of candidates) {
      let model = path.steps[0]!.state as SessionSnapshot;
      const spec = new SessionSpec();
      let now = 0;
      let base = 0;
      let logins = 0;
      let current = 'S0';
      const broken: string[] = [];
      for (const step of path.steps.slice(1)) {
        let event = step.event;
        const type = event.type as string;
        if (type.startsWith('xstate.after.inactivity')) now = model.context.timerDueAt;
        if (event.type === 'TOKEN.ISSUE') spec.token(event.address, event.token);
        if (event.type === 'LOGIN') event = { ...event, sessionId: `S${++logins}`, at: now };
        if (event.type === 'ACTIVITY') {
          now = base + event.at;
          const c = code(model, current, model.context.session?.address ?? '', now);
          broken.push(...spec.call(current, model.context.session?.address ?? '', now, c));
          if (c !== 0) continue;
          event = { ...event, sessionId: current, at: now };
        }
        if (event.type === 'LOGOUT') {
          const id = event.sessionId === 'S' ? current : 'X';
          const address = model.context.session?.address ?? '';
          const ok = code(model, id, address, now) === 0;
          broken.push(...spec.logout(id, address, now, ok ? 204 : 401));
          if (!ok) continue;
          event = { ...event, sessionId: id };
        }
        const [next] = transition(sessionMachine, model, event);
        model = next;
        if (event.type === 'LOGIN') {
          const success = model.context.lastLogin === 'success';
          broken.push(...spec.login(attemptOf(step.event as ModelLogin, event.address, now, success ? event.sessionId : undefined), success ? 200 : 401));
          if (success) {
            current = event.sessionId;
            base = now;
          }
        }
        if (logins > 0) broken.push(...spec.call(current, 'probe', now, code(model, current, 'probe', now)));
        for (const gone of spec.endedSessions()) if (code(model, gone, 'probe', now) !== 1003) broken.push(`session ${gone} not gone`);
      }
      if (broken.length)
        failures.push(
          `${path.steps
            .slice(1)
            .map((s) => stepName(s.event as SessionEvent))
            .join(' → ')}: ${broken.join('; ')}`,
        );
    }
    expect(failures.slice(0, 5), `${failures.length} of ${candidates.length} paths`).toEqual([]);
  });
});

afterAll(() => {
  const report = coverage.report('session', sessionMachine, paths.length);
  writeReport(report);
  expect(report.states.missing).toEqual([]);
  expect(report.transitions.missing).toEqual([]);
});
