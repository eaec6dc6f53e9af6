import { afterAll, describe, expect, it } from 'vitest';
import { transition } from 'xstate';
import { loginProof } from '../../machines/secrets.js';
import { FAILURE_WINDOW_MS, LOCKOUT_MS, sessionMachine, type SessionEvent, type SessionSnapshot } from '../../machines/session.js';
import { OPERATOR_PASSWORD, startHarness, type Harness } from '../harness.js';
import { CoverageRecorder, planPaths, writeReport } from './model.js';

/**
 * Model-based tests of the login/session actor: paths generated from machines/session.ts, executed through
 * GET/POST /v1/login, API calls and POST /v1/logout with the manual clock.
 *
 * Time in the model is relative to the latest successful login (LOGIN at 0, ACTIVITY at 30 s). Delayed transitions
 * are offered only while no other timer runs (the inactivity timer while the throttle is clear; the throttle's
 * timers while nobody is logged in), so each model step maps to one unambiguous moment of the real clock.
 * After every step the session is probed from another address: 1005 means it is valid, 1004 expired, 1003 gone;
 * such a refused call records no activity, so probing does not change what it observes.
 */

const OPERATOR = { username: 'operator', password: OPERATOR_PASSWORD, role: 'operator' as const };
const ACTIVITY_AT = 30_000;

function modelEvents(s: SessionSnapshot): SessionEvent[] {
  const { context } = s;
  const throttleClear = s.matches({ throttle: { open: 'clear' } });
  const events: SessionEvent[] = [
    { type: 'TOKEN.ISSUE', token: 'T' },
    { type: 'LOGIN', proof: loginProof(OPERATOR_PASSWORD, 'T'), account: OPERATOR, address: 'A', sessionId: 'S', at: 0 },
    { type: 'LOGIN', proof: loginProof('wrong-password', 'T'), account: OPERATOR, address: 'A', sessionId: 'S', at: 0 },
    { type: 'LOGIN', proof: loginProof(OPERATOR_PASSWORD, 'T'), account: null, address: 'A', sessionId: 'S', at: 0 },
  ];
  if (context.session) events.push({ type: 'LOGOUT', sessionId: 'S' }, { type: 'LOGOUT', sessionId: 'X' });
  if (s.matches({ login: 'active' }) && throttleClear) {
    if (context.session!.lastActivityAt < ACTIVITY_AT) events.push({ type: 'ACTIVITY', sessionId: 'S', at: ACTIVITY_AT });
    events.push({ type: 'xstate.after.inactivity.session.login.active' } as never);
  }
  if (!s.matches({ login: 'active' })) {
    if (s.matches({ throttle: { open: 'counting' } })) events.push({ type: 'xstate.after.failureWindow.session.throttle.open.counting' } as never);
    if (s.matches({ throttle: 'locked' })) events.push({ type: 'xstate.after.lockout.session.throttle.locked' } as never);
  }
  return events;
}

// Five failures lock: bound the failure count by the machine itself (it resets at the lock).
const { paths } = planPaths(sessionMachine, { events: modelEvents });
const coverage = new CoverageRecorder();

interface Real {
  token: string | null;
  session: string | null;
  /** Clock time of the latest successful login (model time 0). */
  base: number;
  /** Clock time the throttle's current timer started. */
  throttleSince: number;
}

async function execute(h: Harness, real: Real, before: SessionSnapshot, after: SessionSnapshot, event: SessionEvent): Promise<void> {
  const type = event.type as string;
  const at = `${JSON.stringify(event)}`;
  if (type.startsWith('xstate.after.inactivity')) return h.clock.advance(real.base + before.context.timerDueAt - h.clock.now());
  if (type.startsWith('xstate.after.failureWindow')) return h.clock.advance(real.throttleSince + FAILURE_WINDOW_MS - h.clock.now());
  if (type.startsWith('xstate.after.lockout')) return h.clock.advance(real.throttleSince + LOCKOUT_MS - h.clock.now());
  switch (event.type) {
    case 'TOKEN.ISSUE':
      real.token = (await h.http('GET', '/v1/login')).json.token;
      return;
    case 'LOGIN': {
      const password = event.proof === loginProof(OPERATOR_PASSWORD, 'T') ? OPERATOR_PASSWORD : 'wrong-password';
      const username = event.account ? 'operator' : 'ghost';
      const res = await h.http('POST', '/v1/login', { body: { username, password: loginProof(password, real.token ?? 'spent') } });
      real.token = null;
      expect({ at, status: res.status }).toEqual({ at, status: after.context.lastLogin === 'success' ? 200 : 401 });
      if (res.status === 200) {
        real.session = res.json.session.id;
        real.base = h.clock.now();
      }
      const enteredThrottle =
        (after.matches({ throttle: { open: 'counting' } }) && !before.matches({ throttle: { open: 'counting' } })) ||
        (after.matches({ throttle: 'locked' }) && !before.matches({ throttle: 'locked' }));
      if (enteredThrottle) real.throttleSince = h.clock.now();
      return;
    }
    case 'ACTIVITY':
      await h.clock.advance(real.base + event.at - h.clock.now());
      expect((await h.http('GET', '/v1/messages', { session: real.session! })).status).toBe(200);
      return;
    case 'LOGOUT': {
      const id = event.sessionId === 'S' ? real.session! : '00000000-0000-4000-8000-000000000000';
      const res = await h.http('POST', '/v1/logout', { session: id });
      const expected = event.sessionId === 'S' && before.matches({ login: 'active' }) ? 204 : 401;
      expect({ at, status: res.status }).toEqual({ at, status: expected });
      return;
    }
  }
}

describe(`session, ${paths.length} generated paths`, () => {
  it.each(paths.map((p) => [p.steps.slice(1).map((s) => s.event.type.replace('xstate.after.', 'after ').replace(/\.session\..*$/, '')).join(' → ') || '(initial)', p] as const))(
    '%s',
    async (_name, path) => {
      const h = await startHarness({ inspect: coverage.inspect });
      try {
        const real: Real = { token: null, session: null, base: h.clock.now(), throttleSince: h.clock.now() };
        let model = path.steps[0]!.state as SessionSnapshot;
        for (const [i, step] of path.steps.slice(1).entries()) {
          const [next] = transition(sessionMachine, model, step.event);
          await execute(h, real, model, next, step.event);
          model = next;
          if (real.session) {
            const probe = await h.http('GET', '/v1/system_state', { session: real.session, from: '127.0.0.2' });
            const expected = model.matches({ login: 'active' }) ? 1005 : model.matches({ login: 'expired' }) ? 1004 : 1003;
            const at = `step ${i + 1}: ${JSON.stringify(step.event)}`;
            expect({ at, code: probe.json.code }).toEqual({ at, code: expected });
          }
        }
      } finally {
        await h.stop();
      }
    },
  );
});

afterAll(() => {
  const report = coverage.report('session', sessionMachine, paths.length);
  writeReport(report);
  expect(report.states.missing).toEqual([]);
  expect(report.transitions.missing).toEqual([]);
});
