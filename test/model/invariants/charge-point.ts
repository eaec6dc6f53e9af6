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
// Charge point: IEC 61851-1 control pilot, the session/transaction definition (README "Charge cycle"), metering.

export type CpLevel = 'a' | 'b' | 'c' | 'd' | 'e' | 'f';

/** An input of the outside world, as the test applies it. */
export type ChargeInput =
  | { kind: 'pilot'; level: CpLevel }
  /** A tag presented to the reader; `whitelisted`: in the local whitelist. */
  | { kind: 'tag'; id: string; whitelisted: boolean }
  | { kind: 'setting'; name: 'freeCharging' | 'chargingEnabled' | 'ventilation'; on: boolean }
  /** Load management's limit (A); null: none. */
  | { kind: 'loadLimit'; amps: number | null }
  /** The station's temperature over its limit (80 °C) or back under the resume threshold (75 °C). */
  | { kind: 'overtemperature'; on: boolean }
  /** A stop commanded from outside (the central system's RemoteStopTransaction, a reset): no tag, no beep. */
  | { kind: 'stop' }
  /** A user starts a charge without a tag (MQTT `Charge` 1, the web API): accepted or refused, no beep. */
  | { kind: 'start' }
  /** The 1-/3-phase switch needs the contactor open: while the PWM is off under load it may open at once. */
  | { kind: 'phaseSwitchOpens' }
  /** Only time passes. */
  | { kind: 'wait' };

/** What the controller shows after a step (the simulated plant, GET /v1/system_state, GET /v1/transactions). */
export interface ChargeObservation {
  /** The clock (ms). */
  at: number;
  contactorClosed: boolean;
  cableLocked: boolean;
  /** The current the CP's PWM announces (A); null without PWM. */
  pwmA: number | null;
  /** The energy meter's register (Wh). */
  meterWh: number;
  /** The running transaction, or null. */
  transaction: { consumption: number; tagId?: string } | null;
  /** Completed transactions, oldest first. */
  completed: { consumption: number; tagId?: string }[];
  /** Buzzer feedback sounded during the step, in order: `accept` (short beep), `refuse` (long beep). */
  feedback: ('accept' | 'refuse')[];
  /** After a user's start: whether it was accepted. */
  startAccepted?: boolean;
}

/** A user's start as answered (undefined: none in this step). */
const answer = (accepted: boolean | undefined): string => (accepted === undefined ? 'none' : accepted ? 'accepted' : 'refused');

/** IEC 61851-1: below 6 A there is no valid PWM. */
const MIN_CURRENT_A = 6;
/** IEC 61851-1: with the PWM off and the EV still in C, power is cut under load after 6 s. */
const POWER_CUT_MS = 6_000;

export interface ChargeSpecOptions {
  maxCurrentA: number;
  authTimeoutMs: number;
  freeCharging?: boolean;
  chargingEnabled?: boolean;
  ventilation?: boolean;
}

interface Transaction {
  /** The authorizing tag; null for free charging. */
  tag: string | null;
  /** The meter register before the step that started it: no energy before this is the transaction's. */
  meterBefore: number;
}

/**
 * The charge point as the spec defines it, after IEC 61851-1 and the session/transaction definition of the README:
 * a transaction exists exactly while an authorization (a whitelisted tag, or free charging) and a vehicle are both
 * present, except a running transaction suspended by a recoverable fault (overtemperature, D without ventilation),
 * which keeps it with the contactor open and the cable locked; an unsafe fault (CP E or F) or disabled charging ends
 * it. Outputs: PWM announces the allowed current exactly while a transaction may draw it (6 A or more, no fault);
 * the contactor closes only with PWM on, the cable locked and the EV asking (C, or D with ventilation), and opens
 * within its deadline: at once on a fault, on B or A, or 6 s after the PWM went off under load.
 */
export class ChargePointSpec {
  private pilot: CpLevel = 'a';
  private free: boolean;
  private enabled: boolean;
  private ventilation: boolean;
  private limitA: number | null = null;
  private overtemperature = false;
  /** The authorization: a tag, or free charging (tag null); `heldSince`: presented before plug-in, at that time. */
  private auth: { tag: string | null; heldSince?: number } | null = null;
  private tx: Transaction | null = null;
  /** This plug-in's transaction was stopped by its tag: only a new tag starts another (free charging does not). */
  private finished = false;
  /** Since when the PWM is off under load (contactor closed, EV in C): it must open 6 s later at the latest. */
  private pwmOffUnderLoadSince: number | null = null;
  private last: ChargeObservation | undefined;
  private expectedFeedback: ('accept' | 'refuse')[] = [];
  /** The answer a user's start of this step must get (undefined: no start in this step). */
  private expectedStart: boolean | undefined;
  private expectedCompleted: { tag: string | null; meterBefore: number; meterAfter: number }[] = [];

  constructor(private readonly opts: ChargeSpecOptions) {
    this.free = opts.freeCharging ?? false;
    this.enabled = opts.chargingEnabled ?? true;
    this.ventilation = opts.ventilation ?? false;
  }

  private get unsafe(): boolean {
    return this.pilot === 'e' || this.pilot === 'f';
  }
  /** Any fault: CP E or F, D without ventilation, overtemperature. */
  private get fault(): boolean {
    return this.unsafe || (this.pilot === 'd' && !this.ventilation) || this.overtemperature;
  }
  private get plugged(): boolean {
    return this.pilot === 'b' || this.pilot === 'c' || this.pilot === 'd';
  }
  /** The EV asks for energy: C, or D where the installation ventilates. */
  private get requesting(): boolean {
    return this.pilot === 'c' || (this.pilot === 'd' && this.ventilation);
  }
  private get allowedA(): number {
    return Math.min(this.opts.maxCurrentA, this.limitA ?? Number.POSITIVE_INFINITY);
  }
  /** The contactor may carry load now (a transaction, no fault, enabled, the EV asking). */
  private get mayClose(): boolean {
    return this.tx !== null && !this.fault && this.enabled && this.requesting;
  }
  private get underLoad(): boolean {
    return this.last?.contactorClosed ?? false;
  }

  /** The first observation, before any input. */
  start(observation: ChargeObservation): string[] {
    this.settle(observation.at, { before: observation.meterWh, after: observation.meterWh });
    return this.check(observation);
  }

  /**
   * An input applied at `from` (clock), observed at `observation.at` (after the controller had the time the test
   * gives it: the CP debounce, a temperature poll, a timer). Returns the rules the observation breaks.
   */
  step(input: ChargeInput, from: number, observation: ChargeObservation): string[] {
    // A transaction started in this step counts from the register before it; one ended counts up to the one after.
    const meter = { before: this.last?.meterWh ?? observation.meterWh, after: observation.meterWh };
    this.expectedFeedback = [];
    this.expectedStart = undefined;
    switch (input.kind) {
      case 'pilot':
        if (input.level === 'a' && this.plugged) this.vehicleLeft(meter.after);
        this.pilot = input.level;
        break;
      case 'setting':
        if (input.name === 'freeCharging') this.free = input.on;
        if (input.name === 'chargingEnabled') this.enabled = input.on;
        if (input.name === 'ventilation') this.ventilation = input.on;
        break;
      case 'loadLimit':
        this.limitA = input.amps;
        break;
      case 'overtemperature':
        this.overtemperature = input.on;
        break;
      case 'tag':
        this.tag(input.id, input.whitelisted, from, meter);
        break;
      case 'stop':
        if (this.tx) this.stopTransaction(from, meter.after);
        break;
      case 'start':
        this.expectedStart = this.userStart(from);
        break;
      case 'phaseSwitchOpens':
        // The power cut is due now rather than 6 s after the PWM went off (the transaction goes on).
        if (this.underLoad && this.pwmOffUnderLoadSince !== null) this.pwmOffUnderLoadSince = Number.NEGATIVE_INFINITY;
        break;
      case 'wait':
        break;
    }
    this.settle(from, meter, observation.at);
    return this.check(observation);
  }

  private vehicleLeft(meter: number): void {
    this.endTransaction(meter);
    this.auth = null;
    this.finished = false;
  }

  private endTransaction(meter: number): void {
    if (!this.tx) return;
    this.expectedCompleted.push({ tag: this.tx.tag, meterBefore: this.tx.meterBefore, meterAfter: meter });
    this.tx = null;
  }

  /** The transaction stopped (its tag, a commanded stop): under load the PWM goes off and the contactor may stay
   * closed until C→B or 6 s; nothing starts again until a new tag (free charging does not restart it). */
  private stopTransaction(at: number, meter: number): void {
    if (this.underLoad && this.pwmOffUnderLoadSince === null) this.pwmOffUnderLoadSince = at;
    this.endTransaction(meter);
    this.auth = null;
    this.finished = true;
  }

  /** A tag: what the README's charge-cycle rules make of it, and its feedback. */
  private tag(id: string, whitelisted: boolean, at: number, meter: { before: number; after: number }): void {
    const refuse = (): void => void this.expectedFeedback.push('refuse');
    const accept = (): void => void this.expectedFeedback.push('accept');
    if (!this.enabled || this.unsafe) return refuse();
    if (this.tx) {
      // The session's tag ends the transaction (also while suspended); another whitelisted tag is ignored.
      if (this.tx.tag !== null && id === this.tx.tag) {
        accept();
        this.stopTransaction(at, meter.after);
        return;
      }
      return whitelisted ? undefined : refuse();
    }
    if (this.fault) return refuse();
    if (this.underLoad) return refuse(); // stopped by the tag, the contactor still closed: nothing starts yet
    if (!whitelisted) return refuse();
    accept();
    if (!this.plugged) {
      // Before plug-in: the same tag again withdraws the authorization; another one replaces it.
      this.auth = this.auth?.tag === id ? null : { tag: id, heldSince: at };
      return;
    }
    this.auth = { tag: id };
  }

  /**
   * A user's start: an authorization without a tag, as a whitelisted tag's where a charge can start (held before
   * plug-in for the timeout, at once when plugged in); refused while a transaction runs, while the contactor is still
   * closed after a stop, with charging disabled and during a fault. No tag is the session's: none can stop it.
   */
  private userStart(at: number): boolean {
    if (!this.enabled || this.fault || this.tx || this.underLoad) return false;
    this.auth = this.plugged ? { tag: null } : { tag: null, heldSince: at };
    return true;
  }

  /** What follows from the state at once (a transaction starting or ending), then as time passes to `to`. */
  private settle(at: number, meter: { before: number; after: number }, to = at): void {
    if (!this.enabled || this.unsafe || (this.fault && !this.tx)) {
      // Unavailable or faulted: no transaction, no authorization; the session starts afresh once it clears.
      this.endTransaction(meter.after);
      this.auth = null;
      this.finished = false;
    }
    if (this.auth?.heldSince !== undefined && !this.plugged && to >= this.auth.heldSince + this.opts.authTimeoutMs) this.auth = null;
    const operative = this.enabled && !this.fault;
    if (operative && this.plugged && !this.tx && !this.underLoad) {
      if (!this.auth && this.free && !this.finished) this.auth = { tag: null };
      if (this.auth) {
        this.tx = { tag: this.auth.tag, meterBefore: meter.before };
        this.auth = { tag: this.auth.tag };
        this.finished = false;
      }
    }
    // The PWM goes off under load: load management below 6 A while the EV draws.
    if (this.underLoad && this.tx && this.allowedA < MIN_CURRENT_A && this.pwmOffUnderLoadSince === null) this.pwmOffUnderLoadSince = at;
  }

  /** The rules an observation breaks. */
  private check(o: ChargeObservation): string[] {
    const broken: string[] = [];
    const rule = (ok: boolean, text: string) => {
      if (!ok) broken.push(text);
    };
    // Power cut: 6 s after the PWM went off under load, or at once when the EV leaves C.
    const cutDue = this.pwmOffUnderLoadSince !== null ? this.pwmOffUnderLoadSince + POWER_CUT_MS : null;
    const pausingUnderLoad = this.underLoad && cutDue !== null && o.at < cutDue && this.requesting && !this.fault && this.enabled;
    const pwmExpected = this.tx !== null && !this.fault && this.enabled && this.allowedA >= MIN_CURRENT_A;
    const closedExpected = (this.mayClose && pwmExpected) || pausingUnderLoad;

    // IEC 61851-1 safety rules.
    if (o.contactorClosed) {
      rule(o.cableLocked, 'the contactor is closed with the cable unlocked');
      rule(
        this.requesting,
        `the contactor is closed with CP ${this.pilot.toUpperCase()}${this.pilot === 'd' ? ' without ventilation' : ''} (only C, or D with ventilation)`,
      );
      rule(!this.fault, 'the contactor is closed during a fault');
      rule(this.enabled, 'the contactor is closed with charging disabled');
      rule(o.pwmA !== null || (cutDue !== null && o.at < cutDue), 'the contactor is closed without PWM past the 6 s power cut');
    }
    if (this.fault || !this.enabled) rule(o.pwmA === null, 'PWM on during a fault or with charging disabled');
    if (o.pwmA !== null) rule(o.pwmA >= MIN_CURRENT_A, `PWM announces ${o.pwmA} A, below 6 A`);
    rule(!(this.pilot === 'a' && (o.contactorClosed || o.cableLocked)), 'no vehicle, but the contactor closed or the cable locked');

    // The outputs the state calls for.
    rule(o.pwmA === (pwmExpected ? this.allowedA : null), `PWM announces ${o.pwmA} A, expected ${pwmExpected ? `${this.allowedA} A` : 'none'}`);
    rule(o.contactorClosed === closedExpected, `the contactor is ${o.contactorClosed ? 'closed' : 'open'}, expected ${closedExpected ? 'closed' : 'open'}`);
    rule(
      o.cableLocked === (this.tx !== null || o.contactorClosed),
      `the cable is ${o.cableLocked ? 'locked' : 'unlocked'}, expected locked exactly during a transaction or with the contactor closed`,
    );

    // Transactions: exactly while authorization and vehicle are both present (or suspended by a recoverable fault).
    rule(
      (o.transaction !== null) === (this.tx !== null),
      this.tx ? 'no transaction, though a vehicle and an authorization are present' : 'a transaction runs without a vehicle and an authorization',
    );
    if (o.transaction && this.tx)
      rule(
        o.transaction.tagId === (this.tx.tag ?? undefined),
        `the transaction's tag is ${o.transaction.tagId}, expected ${this.tx.tag ?? 'none (free charging)'}`,
      );
    rule(o.completed.length === this.expectedCompleted.length, `${o.completed.length} completed transactions, expected ${this.expectedCompleted.length}`);
    o.completed.forEach((c, i) => {
      const spec = this.expectedCompleted[i];
      if (!spec) return;
      rule(c.tagId === (spec.tag ?? undefined), `completed transaction ${i + 1} has tag ${c.tagId}, expected ${spec.tag ?? 'none'}`);
      rule(
        c.consumption >= 0 && c.consumption <= Math.round(spec.meterAfter) - Math.round(spec.meterBefore),
        `completed transaction ${i + 1} bills ${c.consumption} Wh, more than the ${spec.meterAfter - spec.meterBefore} Wh metered during it`,
      );
    });
    // Energy billed never exceeds energy metered since the transaction's start.
    if (o.transaction && this.tx) {
      const metered = Math.round(o.meterWh) - Math.round(this.tx.meterBefore);
      rule(
        o.transaction.consumption >= 0 && o.transaction.consumption <= metered,
        `the transaction bills ${o.transaction.consumption} Wh, ${metered} Wh metered since its start`,
      );
    }
    rule(o.startAccepted === this.expectedStart, `a user's start ${answer(o.startAccepted)}, expected ${answer(this.expectedStart)}`);
    rule(
      JSON.stringify(o.feedback) === JSON.stringify(this.expectedFeedback),
      `feedback ${JSON.stringify(o.feedback)}, expected ${JSON.stringify(this.expectedFeedback)}`,
    );

    this.last = o;
    if (!o.contactorClosed) this.pwmOffUnderLoadSince = null;
    if (o.pwmA !== null) this.pwmOffUnderLoadSince = null;
    return broken;
  }
}
