import { randomBytes, randomUUID } from 'node:crypto';
import { checkSession, MAX_FAILED_LOGINS, MAX_FAILED_LOGINS_TOTAL, recentFailures, type Session, type SessionErrorCode } from '../machines/session.js';
import type { SessionActor } from '../machines/main-thread.js';
import type { Accounts } from './accounts.js';
import type { Clock } from './core/clock.js';
import type { EventLog } from './events.js';
import type { Logger } from './logger.js';

/**
 * Calls closer together than this after the last recorded one are recorded together, by one ACTIVITY event at the
 * end of the interval carrying the latest call's time (an event costs several microseconds; under load a call
 * every few microseconds would spend a good part of the CPU on them). The 60 s stay exact: the recorded time is
 * never more than this behind the latest call, and that only while the deadline is still more than 59 s away.
 */
export const ACTIVITY_RECORD_MS = 1000;

/**
 * A session's account is read again at most this long after it was last found standing (by the controller's clock):
 * a change by this process (the API) is seen at the next request; one by another process on the database (`npm run
 * accounts`, a restore) within this time. Reading the row on every request cost more than the rest of a request
 * (GET /v1/system_state: about a tenth of the throughput, `npm run bench`).
 */
export const ACCOUNT_RECHECK_MS = 1000;

export type LoginResult = { ok: true; sessionId: string } | { ok: false; reason: 'invalid' | 'throttled' | 'staleToken' };

/**
 * The face of the session actor for the transports: it draws tokens and session ids from the CSPRNG, looks up
 * accounts, sends the events and reads the outcome from the snapshot. The rules live in machines/session.ts.
 */
export function createSessions(
  actor: SessionActor,
  accounts: Accounts,
  clock: Pick<Clock, 'now' | 'setTimeout'>,
  logger?: Logger,
  events?: Pick<EventLog, 'record'>,
) {
  const now = () => clock.now();
  /** The latest call not recorded yet, and when the scheduled event records it. */
  let unrecorded: { sessionId: string; at: number; due: number } | null = null;
  const recordActivity = (sessionId: string, at: number) => {
    unrecorded = null;
    if (actor.getSnapshot().status === 'active') actor.send({ type: 'ACTIVITY', sessionId, at });
  };
  const recordUnrecorded = () => {
    if (unrecorded) recordActivity(unrecorded.sessionId, unrecorded.at);
  };
  /** The session's account standing at login (role, password, creation): the session holds while it is unchanged. */
  let standingAtLogin: { sessionId: string; standing: string } | null = null;
  /** When the session's account was last found standing, and this process's account writes then. */
  let standingChecked: { sessionId: string; at: number; writes: number } | null = null;
  /** Ends the current session if it is `sessionId` (as a logout does: its id answers 1003 from now on). */
  const end = (sessionId: string, reason: 'account_changed' | 'wrong_current_password') => {
    const session = actor.getSnapshot().context.session;
    if (actor.getSnapshot().status !== 'active' || session?.id !== sessionId) return;
    actor.send({ type: 'LOGOUT', sessionId });
    if (actor.getSnapshot().context.session === null) events?.record({ kind: 'session_ended', username: session.username, reason });
  };

  return {
    /** GET /login: a fresh 32-character token for the client `address`; its previous one is invalid from now on. */
    issueToken(address: string): string {
      const token = randomBytes(16).toString('hex');
      actor.send({ type: 'TOKEN.ISSUE', token, address });
      return token;
    },

    /**
     * POST /login: `proof` is hex SHA-256(password + token). The address's token is spent whatever the outcome. A
     * failure that brings its address, or all addresses, to the limit is logged (never the name or proof tried).
     */
    async login(username: string, proof: string, address: string): Promise<LoginResult> {
      const account = await accounts.find(username);
      const sessionId = randomUUID();
      const at = now();
      actor.send({ type: 'LOGIN', proof, account, address, sessionId, at });
      const { context } = actor.getSnapshot();
      const outcome = context.lastLogin ?? 'invalid';
      if (outcome === 'success') {
        standingAtLogin = { sessionId, standing: account!.standing };
        events?.record({ kind: 'login', username: account!.username, address });
        return { ok: true, sessionId };
      }
      // Only failures that were counted are events (at most MAX_FAILED_LOGINS_TOTAL a minute), and reaching a limit:
      // attempts refused without a check (throttled, no valid token) come as fast as a client sends them.
      if (outcome === 'invalid') {
        events?.record({ kind: 'login_refused', address });
        const recent = recentFailures(context, address, at);
        // The event is logged as a warning (services/events.ts).
        if (recent.address === MAX_FAILED_LOGINS) events?.record({ kind: 'login_throttled', address, scope: 'address' });
        if (recent.total === MAX_FAILED_LOGINS_TOTAL) events?.record({ kind: 'login_throttled', address, scope: 'all' });
      }
      return { ok: false, reason: outcome };
    },

    /**
     * Checks a request's session and, when valid, records the call as activity (the 60 s start again): at once when
     * the recorded activity is ACTIVITY_RECORD_MS old, else by the event scheduled for then.
     */
    authenticate(sessionId: string | undefined, address: string): { session: Session } | { code: SessionErrorCode } {
      const at = now();
      if (unrecorded && at >= unrecorded.due) recordUnrecorded(); // its timer is late: the check needs it
      const verdict = checkSession(actor.getSnapshot(), sessionId, address, at);
      if (!('session' in verdict)) return verdict;
      const { id, lastActivityAt } = verdict.session;
      const due = lastActivityAt + ACTIVITY_RECORD_MS;
      if (at >= due) {
        recordActivity(id, at);
      } else if (at > lastActivityAt) {
        if (!unrecorded) clock.setTimeout(recordUnrecorded, due - at);
        unrecorded = { sessionId: id, at, due };
      }
      return verdict;
    },

    /**
     * Whether the session's account still stands as it did at login: same role, same password, not removed (nor
     * removed and added again), whoever changed it: the API, `npm run accounts` in another process, a restore. Its
     * row is read again after any account write of this process, or ACCOUNT_RECHECK_MS after the last read; a
     * changed account ends the session at once (false: answer 1003).
     */
    async accountHolds(session: Session): Promise<boolean> {
      const at = now();
      const writes = accounts.writes();
      const checked = standingChecked;
      if (checked?.sessionId === session.id && checked.writes === writes && at >= checked.at && at - checked.at < ACCOUNT_RECHECK_MS) return true;
      const standing = await accounts.standing(session.username);
      if (standing !== null && standingAtLogin?.sessionId === session.id && standing === standingAtLogin.standing) {
        standingChecked = { sessionId: session.id, at, writes };
        return true;
      }
      end(session.id, 'account_changed');
      return false;
    },

    /** The session changed its own account's password (proving the current one): it holds on with the new standing. */
    async keepAfterOwnChange(session: Session): Promise<void> {
      const standing = await accounts.standing(session.username);
      if (standing !== null && standingAtLogin?.sessionId === session.id) standingAtLogin = { sessionId: session.id, standing };
    },

    /** Ends the session after a wrong current password (a stolen session gets one guess; logins are throttled). */
    endAfterWrongPassword(session: Session): void {
      end(session.id, 'wrong_current_password');
    },

    logout(sessionId: string): void {
      const session = actor.getSnapshot().context.session;
      actor.send({ type: 'LOGOUT', sessionId });
      if (session?.id === sessionId && actor.getSnapshot().context.session === null) events?.record({ kind: 'logout', username: session.username });
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
