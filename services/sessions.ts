import { randomBytes, randomUUID } from 'node:crypto';
import { checkSession, type Session, type SessionErrorCode } from '../machines/session.js';
import type { SessionActor } from '../machines/controller.js';
import type { Accounts } from './accounts.js';
import type { Clock } from './controller.js';

/**
 * Calls closer together than this after the last recorded one are recorded together, by one ACTIVITY event at the
 * end of the interval carrying the latest call's time (an event costs several microseconds; under load a call
 * every few microseconds would spend a good part of the CPU on them). The 60 s stay exact: the recorded time is
 * never more than this behind the latest call, and that only while the deadline is still more than 59 s away.
 */
export const ACTIVITY_RECORD_MS = 1000;

export type LoginResult = { ok: true; sessionId: string } | { ok: false; reason: 'invalid' | 'throttled' };

/**
 * The face of the session actor for the transports: it draws tokens and session ids from the CSPRNG, looks up
 * accounts, sends the events and reads the outcome from the snapshot. The rules live in machines/session.ts.
 */
export function createSessions(actor: SessionActor, accounts: Accounts, clock: Pick<Clock, 'now' | 'setTimeout'>) {
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

  return {
    /** GET /login: a fresh 32-character token; the previous one is invalid from now on. */
    issueToken(): string {
      const token = randomBytes(16).toString('hex');
      actor.send({ type: 'TOKEN.ISSUE', token });
      return token;
    },

    /** POST /login: `proof` is hex SHA-256(password + token). The token is spent whatever the outcome. */
    async login(username: string, proof: string, address: string): Promise<LoginResult> {
      const account = await accounts.find(username);
      const sessionId = randomUUID();
      actor.send({ type: 'LOGIN', proof, account, address, sessionId, at: now() });
      const outcome = actor.getSnapshot().context.lastLogin;
      if (outcome === 'success') return { ok: true, sessionId };
      return { ok: false, reason: outcome === 'throttled' ? 'throttled' : 'invalid' };
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

    logout(sessionId: string): void {
      actor.send({ type: 'LOGOUT', sessionId });
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
