import { randomBytes, randomUUID } from 'node:crypto';
import { checkSession, type Session, type SessionErrorCode } from '../machines/session.js';
import type { SessionActor } from '../machines/controller.js';
import type { Accounts } from './accounts.js';

export type LoginResult = { ok: true; sessionId: string } | { ok: false; reason: 'invalid' | 'throttled' };

/**
 * The face of the session actor for the transports: it draws tokens and session ids from the CSPRNG, looks up
 * accounts, sends the events and reads the outcome from the snapshot. The rules live in machines/session.ts.
 */
export function createSessions(actor: SessionActor, accounts: Accounts, now: () => number) {
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
     * Checks a request's session and, when valid, records the call as activity (the 60 s start again). Calls within
     * the same millisecond as the recorded one change nothing, so they send no event (cheap under load).
     */
    authenticate(sessionId: string | undefined, address: string): { session: Session } | { code: SessionErrorCode } {
      const at = now();
      const verdict = checkSession(actor.getSnapshot(), sessionId, address, at);
      if ('session' in verdict && verdict.session.lastActivityAt < at) actor.send({ type: 'ACTIVITY', sessionId: verdict.session.id, at });
      return verdict;
    },

    logout(sessionId: string): void {
      actor.send({ type: 'LOGOUT', sessionId });
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
