import { assign, setup, type SnapshotFrom } from 'xstate';
import type { Role } from '../db/roles.js';
import { loginProofMatches, secretEquals } from './secrets.js';

/**
 * The login/session lifecycle (spec 3, 5): one-time login tokens per client address, one session at a time across
 * every interface, the 60 s inactivity timeout, and the limits on failed password checks (per address and overall).
 *
 * Pure: randomness (tokens, session ids) and account look-ups come in with the events; time comes from the actor's
 * clock through the named delay and with the events (`at`).
 */

/** Inactivity after which a session expires (spec 8). */
export const SESSION_TIMEOUT_MS = 60_000;
/** Failed password checks from one client address within FAILURE_WINDOW_MS after which its attempts are refused. */
export const MAX_FAILED_LOGINS = 5;
/** Failed password checks from all addresses together within FAILURE_WINDOW_MS after which every attempt is refused. */
export const MAX_FAILED_LOGINS_TOTAL = 30;
/** The sliding window of both limits: an attempt is refused while the limit's failures all lie within it. */
export const FAILURE_WINDOW_MS = 60_000;
/** Client addresses whose login tokens are kept; a token issued to one more address forgets the least recent. */
export const MAX_LOGIN_CLIENTS = 256;
/** Spent or superseded tokens kept per address, so that an attempt with one is known as such (not a failure). */
export const STALE_TOKENS_KEPT = 4;

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

/** A client address's login tokens (spec 5 items 2–3 hold per client: one address cannot spend another's token). */
export interface LoginClient {
  address: string;
  /** The outstanding token, valid for exactly the next attempt from this address. */
  token: string | null;
  /** Its latest spent or superseded tokens, oldest first (at most STALE_TOKENS_KEPT). */
  stale: string[];
}

/** A failed password check: its client address and time. */
export interface FailedLogin {
  address: string;
  at: number;
}

/**
 * Outcome of a login attempt. `staleToken`: the address holds no valid token (none issued, or its token spent or
 * superseded) or the proof used a spent or superseded token; the password was not checked, so no failure counts.
 * `throttled`: too many failed checks (from this address, or from all); not checked either.
 */
export type LoginOutcome = 'success' | 'invalid' | 'throttled' | 'staleToken';

export interface SessionContext {
  /** Login tokens per client address, the most recently active last (at most MAX_LOGIN_CLIENTS). */
  clients: LoginClient[];
  /** Failed password checks, oldest first; those older than FAILURE_WINDOW_MS are dropped at the next failure. */
  failures: FailedLogin[];
  /** The current session (state `active`) or the one that timed out (state `expired`). */
  session: Session | null;
  /** Outcome of the latest LOGIN event, read by the sender right after sending it. */
  lastLogin: LoginOutcome | null;
  /** The inactivity timer of state `active`: armed at `timerArmedAt`, fires at `timerDueAt`. */
  timerArmedAt: number;
  timerDueAt: number;
}

export type SessionEvent =
  | { type: 'TOKEN.ISSUE'; token: string; address: string }
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

type LoginEvent = Extract<SessionEvent, { type: 'LOGIN' }>;

const clientOf = (context: SessionContext, address: string) => context.clients.find((c) => c.address === address);

/** Failed checks within the window before `at`: from `address`, and from all addresses. */
export function recentFailures(context: SessionContext, address: string, at: number): { address: number; total: number } {
  let fromAddress = 0;
  let total = 0;
  for (const failure of context.failures) {
    if (failure.at <= at - FAILURE_WINDOW_MS) continue;
    total++;
    if (failure.address === address) fromAddress++;
  }
  return { address: fromAddress, total };
}

/** The clients with `client` replaced (or added) as the most recently active, the least recent beyond the bound dropped. */
function withClient(clients: LoginClient[], client: LoginClient): LoginClient[] {
  const others = clients.filter((c) => c.address !== client.address);
  return [...others.slice(Math.max(0, others.length - (MAX_LOGIN_CLIENTS - 1))), client];
}

const retire = (client: LoginClient): string[] => (client.token === null ? client.stale : [...client.stale, client.token].slice(-STALE_TOKENS_KEPT));

export const sessionMachine = setup({
  types: {} as { context: SessionContext; events: SessionEvent },
  delays: {
    /** Until the inactivity deadline known when the timer was armed. */
    inactivity: ({ context }) => context.timerDueAt - context.timerArmedAt,
  },
  guards: {
    withoutToken: ({ context, event }) => event.type === 'LOGIN' && !clientOf(context, event.address)?.token,
    loginsThrottled: ({ context, event }) => {
      const { address, at } = event as LoginEvent;
      const recent = recentFailures(context, address, at);
      return recent.address >= MAX_FAILED_LOGINS || recent.total >= MAX_FAILED_LOGINS_TOTAL;
    },
    credentialsMatch: ({ context, event }) => {
      const token = event.type === 'LOGIN' ? clientOf(context, event.address)?.token : null;
      return !!token && loginProofMatches((event as LoginEvent).account?.password ?? null, token, (event as LoginEvent).proof);
    },
    staleTokenProof: ({ context, event }) =>
      event.type === 'LOGIN' &&
      event.account !== null &&
      // Stryker disable next-line ArrayDeclaration: checked after withoutToken, so the address's client exists here.
      (clientOf(context, event.address)?.stale ?? []).some((token) => loginProofMatches(event.account!.password, token, event.proof)),
    isCurrentSession: ({ context, event }) =>
      (event.type === 'ACTIVITY' || event.type === 'LOGOUT') && context.session !== null && secretEquals(context.session.id, event.sessionId),
    activeSinceTimerArmed: ({ context }) => context.session !== null && context.session.lastActivityAt + SESSION_TIMEOUT_MS > context.timerDueAt,
  },
  actions: {
    issueToken: assign({
      clients: ({ context, event }) => {
        if (event.type !== 'TOKEN.ISSUE') return context.clients;
        // a new client's stale list; an entry there is no token ever issued
        // (tokens are 128-bit random), and four real ones push it out before it could displace one.
        // Stryker disable next-line ArrayDeclaration: see above
        const client = clientOf(context, event.address) ?? { address: event.address, token: null, stale: [] };
        return withClient(context.clients, { address: event.address, token: event.token, stale: retire(client) });
      },
    }),
    spendToken: assign({
      clients: ({ context, event }) => {
        const client = event.type === 'LOGIN' ? clientOf(context, event.address) : undefined;
        return client ? withClient(context.clients, { ...client, token: null, stale: retire(client) }) : context.clients;
      },
    }),
    recordFailure: assign({
      failures: ({ context, event }) => {
        const { address, at } = event as LoginEvent;
        return [...context.failures.filter((f) => f.at > at - FAILURE_WINDOW_MS), { address, at }];
      },
    }),
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
  },
}).createMachine({
  id: 'session',
  initial: 'login',
  context: { clients: [], failures: [], session: null, lastLogin: null, timerArmedAt: 0, timerDueAt: 0 },
  on: {
    'TOKEN.ISSUE': { actions: 'issueToken' },
  },
  states: {
    login: {
      initial: 'loggedOut',
      // A login attempt, in every state of the session. Whatever its outcome it spends its address's token; only a
      // wrong password checked against a valid token counts as a failure.
      on: {
        LOGIN: [
          { guard: 'withoutToken', actions: { type: 'recordOutcome', params: { outcome: 'staleToken' } } },
          { guard: 'loginsThrottled', actions: ['spendToken', { type: 'recordOutcome', params: { outcome: 'throttled' } }] },
          {
            guard: 'credentialsMatch',
            // Re-enters `active` (also from `active`: a transition exits the active states below its source), which
            // restarts the inactivity timer for the new session.
            target: '.active',
            actions: ['spendToken', 'startSession', { type: 'recordOutcome', params: { outcome: 'success' } }],
          },
          { guard: 'staleTokenProof', actions: ['spendToken', { type: 'recordOutcome', params: { outcome: 'staleToken' } }] },
          { actions: ['spendToken', 'recordFailure', { type: 'recordOutcome', params: { outcome: 'invalid' } }] },
        ],
      },
      states: {
        loggedOut: {},
        active: {
          // Calls only record their time; when the timer fires it re-arms for the rest of the 60 s after the latest
          // call, or expires the session. (No timer is cancelled and re-created per request.)
          after: {
            inactivity: [{ guard: 'activeSinceTimerArmed', target: 'active', reenter: true, actions: 'rearmInactivityTimer' }, { target: 'expired' }],
          },
          on: {
            ACTIVITY: { guard: 'isCurrentSession', actions: 'recordActivity' },
            LOGOUT: { guard: 'isCurrentSession', target: 'loggedOut', actions: 'endSession' },
          },
        },
        expired: {},
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
