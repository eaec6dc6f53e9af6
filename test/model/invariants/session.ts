/**
 * Invariants the model-based tests check after every step, written from IEC 61851-1, the NFC Forum Type 4 Tag
 * mapping (ISO 7816-4 APDUs), the API spec and the README's rules, never read from the machines: this module imports
 * nothing from machines/ (nor anything else of the controller). The generated paths come from the machines, so a
 * mutated machine changes the model and the controller together and the model's own comparison still passes; these
 * oracles do not move with it.
 *
 * Each oracle is fed the inputs the test applies (as the outside world sees them) and what the controller shows
 * afterwards, and answers the rules the observation breaks (an empty list when none).
 *
 * One oracle a file (test/model/invariants/), like this one importing nothing of the controller.
 */

// ---------------------------------------------------------------------------------------------------------------
// Login and sessions (spec 3, 5, 7.2, 8; README "Sessions").

/** Inactivity after which a session expires (spec 8). */
const SESSION_IDLE_MS = 60_000;
/** Failed password checks from one address, and from all, within a minute after which attempts are refused. */
const FAILURES_PER_ADDRESS = 5;
const FAILURES_TOTAL = 30;
const FAILURE_WINDOW = 60_000;
/** Spent or superseded tokens an address's attempt is still known by (not counted as a failure). */
const STALE_KEPT = 4;

/**
 * The login rules of the spec and the README: a token per client address, valid for its next attempt only (asking
 * again supersedes it; any attempt spends it); one session at a time, bound to its address, expiring after 60 s
 * without a call; failed password checks bounded per address and overall; attempts without a valid token, or with
 * a spent or superseded one, refused without counting. Tokens and session ids are names the test chooses.
 */
export class SessionSpec {
  private clients = new Map<string, { token: string | null; stale: string[] }>();
  private failures: { address: string; at: number }[] = [];
  private session: { id: string; address: string; lastActivity: number; ended: boolean } | null = null;
  private ended = new Set<string>();

  /** GET /v1/login answered `token` to `address`. */
  token(address: string, token: string): void {
    const c = this.clients.get(address) ?? { token: null, stale: [] };
    this.clients.set(address, { token, stale: c.token === null ? c.stale : [...c.stale, c.token].slice(-STALE_KEPT) });
  }

  /**
   * POST /v1/login from `address` with a proof made from `token` (null: none) and the right or a wrong password,
   * for an existing account or not, at `at`; the controller answered `status`, and `sessionId` when it was 200.
   */
  login(
    attempt: { address: string; token: string | null; passwordRight: boolean; accountExists: boolean; at: number; sessionId?: string },
    status: number,
  ): string[] {
    const { address, token, at } = attempt;
    const c = this.clients.get(address);
    let expected: 200 | 401;
    let counts = false;
    if (!c?.token)
      expected = 401; // no valid token: refused, nothing spent, not a failure
    else {
      const recent = this.failures.filter((f) => f.at > at - FAILURE_WINDOW);
      const throttled = recent.filter((f) => f.address === address).length >= FAILURES_PER_ADDRESS || recent.length >= FAILURES_TOTAL;
      const valid = token === c.token;
      const staleProof = token !== null && c.stale.includes(token) && attempt.accountExists && attempt.passwordRight;
      if (throttled) expected = 401;
      else if (valid && attempt.passwordRight && attempt.accountExists) expected = 200;
      else {
        expected = 401;
        counts = !staleProof;
      }
      this.clients.set(address, { token: null, stale: [...c.stale, c.token].slice(-STALE_KEPT) });
    }
    if (counts) this.failures = [...this.failures.filter((f) => f.at > at - FAILURE_WINDOW), { address, at }];
    if (expected === 200 && status === 200 && attempt.sessionId) {
      if (this.session) this.ended.add(this.session.id);
      this.session = { id: attempt.sessionId, address, lastActivity: at, ended: false };
    }
    return status === expected ? [] : [`login from ${address} with ${token ?? 'no token'} answered ${status}, expected ${expected}`];
  }

  /** The session code a call with `id` from `address` at `at` must get: 0 for a valid one (spec 7.2 otherwise). */
  private code(id: string, address: string, at: number): 0 | 1003 | 1004 | 1005 {
    const s = this.session;
    if (!s || s.id !== id || s.ended) return 1003;
    if (at >= s.lastActivity + SESSION_IDLE_MS) return 1004;
    if (address !== s.address) return 1005;
    return 0;
  }

  /** An API call with session `id` from `address` at `at`, answered with `code` (0: accepted). */
  call(id: string, address: string, at: number, code: number): string[] {
    const expected = this.code(id, address, at);
    if (expected === 0 && code === 0) this.session!.lastActivity = at; // any accepted call counts; a refused one does not
    return code === expected ? [] : [`a call with session ${id} from ${address} at +${at} got ${code || 'through'}, expected ${expected || 'through'}`];
  }

  /** POST /v1/logout with `id` from `address`, answered `status`. */
  logout(id: string, address: string, at: number, status: number): string[] {
    const expected = this.code(id, address, at) === 0 ? 204 : 401;
    if (expected === 204 && status === 204) {
      this.session!.ended = true;
      this.ended.add(id);
    }
    return status === expected ? [] : [`logout of ${id} answered ${status}, expected ${expected}`];
  }

  /** Sessions a later login replaced or a logout ended (each must answer 1003). */
  endedSessions(): string[] {
    return [...this.ended];
  }
}
