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
// Pairing mode (spec 3, 4.5; README "Pairing mode").

/** Pairing lasts 60 s or until one tag is read. */
const PAIRING_MS = 60_000;

/**
 * Pairing mode: POST /v1/whitelist/pairing turns it on for 60 s only while the charge point is idle (else 500);
 * the next tag read ends it, beeping twice when whitelisted and once when new, and GET answers that tag until
 * pairing is enabled again (500 before any tag).
 */
export class PairingSpec {
  private onSince: number | null = null;
  private tag: string | null = null;

  /** POST pairing at `at` with the charge point idle or not, answered `status`. */
  enable(idle: boolean, at: number, status: number): string[] {
    this.expire(at);
    if (idle) {
      this.onSince = at;
      this.tag = null;
    }
    const expected = idle ? 200 : 500;
    return status === expected ? [] : [`POST pairing (charge point ${idle ? 'idle' : 'busy'}) answered ${status}, expected ${expected}`];
  }

  /** A tag read at `at` (whitelisted or not) while the test expects pairing to take it; `beeps` sounded. */
  tagRead(id: string, whitelisted: boolean, at: number, beeps: number): string[] {
    this.expire(at);
    if (this.onSince === null) return beeps === 0 ? [] : [`a tag outside pairing beeped ${beeps} times in the pairing model`];
    this.onSince = null;
    this.tag = id;
    const expected = whitelisted ? 2 : 1;
    return beeps === expected ? [] : [`pairing read ${whitelisted ? 'a whitelisted' : 'a new'} tag with ${beeps} beeps, expected ${expected}`];
  }

  /** GET pairing at `at` answered `status` with the tag id `id`. */
  paired(at: number, status: number, id: string | undefined): string[] {
    this.expire(at);
    const ok = this.tag ? status === 200 && id === this.tag : status === 500;
    return ok ? [] : [`GET pairing answered ${status} ${id ?? ''}, expected ${this.tag ? `200 ${this.tag}` : 500}`];
  }

  /** Whether pairing is on at `at` (a tag then goes to pairing, not to the charge cycle). */
  on(at: number): boolean {
    this.expire(at);
    return this.onSince !== null;
  }

  private expire(at: number): void {
    if (this.onSince !== null && at >= this.onSince + PAIRING_MS) this.onSince = null;
  }
}
