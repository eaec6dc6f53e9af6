import { and, assign, not, setup, stateIn, type SnapshotFrom } from 'xstate';
import type { Role } from '../db/schema.js';
import { loginProofMatches, secretEquals } from './secrets.js';

/**
 * The login/session lifecycle (spec 3, 5): one-time login tokens, one session at a time across every interface,
 * the 60 s inactivity timeout, and the throttle on failed logins.
 *
 * Pure: randomness (tokens, session ids) and account look-ups come in with the events; time comes from the actor's
 * clock through the named delays.
 */

/** Inactivity after which a session expires (spec 8). */
export const SESSION_TIMEOUT_MS = 60_000;
/** Failed logins allowed within FAILURE_WINDOW_MS before logins are refused for LOCKOUT_MS. */
export const MAX_FAILED_LOGINS = 5;
export const FAILURE_WINDOW_MS = 60_000;
export const LOCKOUT_MS = 60_000;

/** A login account as the session machine needs it. */
export interface Account {
  username: string;
  password: string;
  role: Role;
}

/** The logged-in session. `address` is the client address it was created from (HTTP peer, or the NFC link). */
export interface Session {
  id: string;
  username: string;
  role: Role;
  address: string;
  /** Time of the latest call with this session (the actor clock's milliseconds). */
  lastActivityAt: number;
}

export type LoginOutcome = 'success' | 'invalid' | 'throttled';

export interface SessionContext {
  /** The outstanding login token, valid for exactly the next attempt. */
  token: string | null;
  /** The current session (state `active`) or the one that timed out (state `expired`). */
  session: Session | null;
  /** Failed logins in the current failure window. */
  failures: number;
  /** Outcome of the latest LOGIN event, read by the sender right after sending it. */
  lastLogin: LoginOutcome | null;
  /** The inactivity timer of state `active`: armed at `timerArmedAt`, fires at `timerDueAt`. */
  timerArmedAt: number;
  timerDueAt: number;
}

export type SessionEvent =
  | { type: 'TOKEN.ISSUE'; token: string }
  | {
      type: 'LOGIN';
      /** Hex SHA-256 of password + token, as sent by the client. */
      proof: string;
      /** The account named by the request, null when no such account exists. */
      account: Account | null;
      address: string;
      /** A fresh id from a CSPRNG, used when the login succeeds. */
      sessionId: string;
      /** The actor clock's time of the attempt. */
      at: number;
    }
  | { type: 'ACTIVITY'; sessionId: string; at: number }
  | { type: 'LOGOUT'; sessionId: string };

/**
 * LOGIN, handled in each state of the login region (a transition on the region itself that re-enters `active`
 * would exit the parallel throttle region too). Guards are evaluated before any action runs, so every region sees
 * the token of the attempt.
 */
const loginTransitions = [
  {
    guard: 'loginsLocked',
    actions: ['spendToken', { type: 'recordOutcome', params: { outcome: 'throttled' } }],
  },
  {
    guard: 'credentialsMatch',
    target: '#session.login.active',
    reenter: true,
    actions: ['spendToken', 'startSession', { type: 'recordOutcome', params: { outcome: 'success' } }],
  },
  { actions: ['spendToken', { type: 'recordOutcome', params: { outcome: 'invalid' } }] },
] as const;

export const sessionMachine = setup({
  types: {} as { context: SessionContext; events: SessionEvent },
  delays: {
    /** Until the inactivity deadline known when the timer was armed. */
    inactivity: ({ context }) => context.timerDueAt - context.timerArmedAt,
    failureWindow: FAILURE_WINDOW_MS,
    lockout: LOCKOUT_MS,
  },
  guards: {
    credentialsMatch: ({ context, event }) =>
      event.type === 'LOGIN' &&
      context.token !== null &&
      loginProofMatches(event.account?.password ?? null, context.token, event.proof),
    isCurrentSession: ({ context, event }) =>
      (event.type === 'ACTIVITY' || event.type === 'LOGOUT') &&
      context.session !== null &&
      secretEquals(context.session.id, event.sessionId),
    lastAllowedFailure: ({ context }) => context.failures + 1 >= MAX_FAILED_LOGINS,
    activeSinceTimerArmed: ({ context }) =>
      context.session !== null && context.session.lastActivityAt + SESSION_TIMEOUT_MS > context.timerDueAt,
    loginsLocked: stateIn({ throttle: 'locked' }),
  },
  actions: {
    issueToken: assign({ token: ({ event }) => (event.type === 'TOKEN.ISSUE' ? event.token : null) }),
    spendToken: assign({ token: null }),
    startSession: assign(({ event }) => {
      if (event.type !== 'LOGIN' || !event.account) return {};
      const { sessionId: id, address, at } = event;
      const { username, role } = event.account;
      return { session: { id, username, role, address, lastActivityAt: at }, timerArmedAt: at, timerDueAt: at + SESSION_TIMEOUT_MS };
    }),
    recordActivity: assign({
      session: ({ context, event }) =>
        context.session && event.type === 'ACTIVITY'
          ? { ...context.session, lastActivityAt: Math.max(context.session.lastActivityAt, event.at) }
          : context.session,
    }),
    rearmInactivityTimer: assign({
      timerArmedAt: ({ context }) => context.timerDueAt,
      timerDueAt: ({ context }) => (context.session?.lastActivityAt ?? 0) + SESSION_TIMEOUT_MS,
    }),
    endSession: assign({ session: null }),
    recordOutcome: assign({ lastLogin: (_, params: { outcome: LoginOutcome }) => params.outcome }),
    countFailure: assign({ failures: ({ context }) => context.failures + 1 }),
    resetFailures: assign({ failures: 0 }),
  },
}).createMachine({
  id: 'session',
  type: 'parallel',
  context: { token: null, session: null, failures: 0, lastLogin: null, timerArmedAt: 0, timerDueAt: 0 },
  on: {
    'TOKEN.ISSUE': { actions: 'issueToken' },
  },
  states: {
    login: {
      initial: 'loggedOut',
      states: {
        loggedOut: { on: { LOGIN: loginTransitions } },
        active: {
          // Calls only record their time; when the timer fires it re-arms for the rest of the 60 s after the
          // latest call, or expires the session. (No timer is cancelled and re-created per request.)
          after: {
            inactivity: [
              { guard: 'activeSinceTimerArmed', target: 'active', reenter: true, actions: 'rearmInactivityTimer' },
              { target: 'expired' },
            ],
          },
          on: {
            LOGIN: loginTransitions,
            ACTIVITY: { guard: 'isCurrentSession', actions: 'recordActivity' },
            LOGOUT: { guard: 'isCurrentSession', target: 'loggedOut', actions: 'endSession' },
          },
        },
        expired: { on: { LOGIN: loginTransitions } },
      },
    },
    throttle: {
      initial: 'open',
      states: {
        open: {
          initial: 'clear',
          states: {
            clear: {
              entry: 'resetFailures',
              on: { LOGIN: { guard: not('credentialsMatch'), target: 'counting', actions: 'countFailure' } },
            },
            counting: {
              after: { failureWindow: { target: 'clear' } },
              on: {
                LOGIN: [
                  { guard: and([not('credentialsMatch'), 'lastAllowedFailure']), target: '#session.throttle.locked' },
                  { guard: not('credentialsMatch'), actions: 'countFailure' },
                ],
              },
            },
          },
        },
        locked: {
          entry: 'resetFailures',
          after: { lockout: { target: 'open' } },
        },
      },
    },
  },
});

export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

/** Session error codes of spec 7.2 that a request's session check can produce. */
export type SessionErrorCode = 1002 | 1003 | 1004 | 1005;

/**
 * Checks a request's session id and client address against the snapshot at time `now` (the actor clock): the
 * session, or the spec 7.2 code. A session past its deadline counts as timed out even if its timer has not run yet.
 * A caller that gets a session sends ACTIVITY to record the call.
 */
export function checkSession(
  snapshot: SessionSnapshot,
  sessionId: string | undefined,
  address: string,
  now: number,
): { session: Session } | { code: SessionErrorCode } {
  if (!sessionId) return { code: 1002 };
  const session = snapshot.context.session;
  if (!session || !secretEquals(session.id, sessionId)) return { code: 1003 };
  if (snapshot.value.login === 'expired' || now >= session.lastActivityAt + SESSION_TIMEOUT_MS) return { code: 1004 };
  if (session.address !== address) return { code: 1005 };
  return { session };
}
