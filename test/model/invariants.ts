/**
 * Invariants the model-based tests check after every step, written from IEC 61851-1, the NFC Forum Type 4 Tag
 * mapping (ISO 7816-4 APDUs), the API spec and the README's rules, never read from the machines: this module imports
 * nothing from machines/ (nor anything else of the controller). The generated paths come from the machines, so a
 * mutated machine changes the model and the controller together and the model's own comparison still passes; these
 * oracles do not move with it.
 *
 * Each oracle is fed the inputs the test applies (as the outside world sees them) and what the controller shows
 * afterwards, and answers the rules the observation breaks (an empty list when none).
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
}

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

// ---------------------------------------------------------------------------------------------------------------
// NFC: each response APDU a valid ISO 7816-4 answer to its command, as the NFC Forum Type 4 Tag mapping (version 2.0)
// asks of a tag (../shared/reference/pn532-and-type4-tag.md §2).

/** The NDEF Tag Application's name (T4T). */
const T4T_AID = [0xd2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01];
/** The capability container's file id (T4T). */
const T4T_CC_FILE = 0xe103;
/** Every frame of the exchange must stay a normal PN532 frame: MLe and MLc at most 0xF6. */
const MAX_NORMAL_FRAME_DATA = 0xf6;

const SW_OK = 0x9000;
const SW_END_OF_FILE = 0x6282;
const SW_WRONG_LENGTH = 0x6700;
const SW_READ_ONLY = [0x6982, 0x6985, 0x6986];
const SW_NO_FILE = 0x6986;
const SW_NOT_FOUND = 0x6a82;
const SW_WRONG_P1P2 = [0x6a86, 0x6b00];
const SW_OFFSET = 0x6b00;
const SW_INS = 0x6d00;
const SW_CLA = 0x6e00;

const hexOf = (b: ArrayLike<number>) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const sw = (n: number) => n.toString(16).padStart(4, '0');

/** What a valid capability container declares (T4T mapping 2.0), or why it is not one. */
export function capabilityContainer(cc: ArrayLike<number>): { mle: number; mlc: number; fileId: number; fileSize: number; writable: boolean } | string {
  if (cc.length < 15) return `a capability container of ${cc.length} bytes (at least 15)`;
  const u16 = (i: number) => (cc[i]! << 8) | cc[i + 1]!;
  if (u16(0) < 0x000f) return `CCLEN ${u16(0)} (at least 15)`;
  if (cc[2] !== 0x20) return `mapping version ${cc[2]!.toString(16)} (2.0 is 20)`;
  const mle = u16(3);
  const mlc = u16(5);
  if (mle < 0x000f || mle > MAX_NORMAL_FRAME_DATA) return `MLe ${mle} (15 to ${MAX_NORMAL_FRAME_DATA})`;
  if (mlc < 0x0001 || mlc > MAX_NORMAL_FRAME_DATA) return `MLc ${mlc} (1 to ${MAX_NORMAL_FRAME_DATA})`;
  if (cc[7] !== 0x04 || cc[8] !== 0x06) return 'no NDEF File Control TLV (04 06) at offset 7';
  const fileId = u16(9);
  if ([0x0000, 0xe102, T4T_CC_FILE, 0x3f00, 0x3fff, 0xffff].includes(fileId)) return `NDEF file id ${fileId.toString(16)} is reserved`;
  const fileSize = u16(11);
  if (fileSize < 0x0005 || fileSize > 0x7fff) return `NDEF file size ${fileSize} (5 to 7FFF in mapping 2.0)`;
  if (cc[13] !== 0x00) return `read access ${cc[13]} (00: open)`;
  if (cc[14] !== 0x00 && cc[14] !== 0xff) return `write access ${cc[14]} (00 open or FF read-only)`;
  return { mle, mlc, fileId, fileSize, writable: cc[14] === 0x00 };
}

/**
 * A phone's view of an emulated Type 4 Tag: what it selected (cleared by each activation, ISO 7816-4: the selection
 * ends with the session), the capability container once read, and the NDEF file's bytes it wrote (forgotten when
 * the controller puts a message there itself). `answer` checks one response APDU against its command.
 */
export class Type4TagSpec {
  private appSelected = false;
  private file: 'cc' | 'ndef' | null = null;
  private cc: ReturnType<typeof capabilityContainer> | null = null;
  private ccBytes: number[] | null = null;
  /** Bytes of the NDEF file known from the phone's own writes and reads. */
  private known = new Map<number, number>();

  /** A phone activated the tag: nothing is selected. */
  activated(): void {
    this.appSelected = false;
    this.file = null;
  }

  /** The controller put another message in the NDEF file (an answer, a refusal, an emptied NLEN). */
  fileRewritten(): void {
    this.known.clear();
  }

  /** The rules the response to `command` breaks. */
  answer(command: ArrayLike<number>, response: ArrayLike<number> | null): string[] {
    const at = `${hexOf(command)} → ${response ? hexOf(response) : 'none'}`;
    const broken: string[] = [];
    const rule = (ok: boolean, text: string) => {
      if (!ok) broken.push(`${at}: ${text}`);
    };
    if (!response || response.length < 2) return [`${at}: no status word`];
    const status = (response[response.length - 2]! << 8) | response[response.length - 1]!;
    const data = Array.from(response).slice(0, -2);
    const success = status === SW_OK || status === SW_END_OF_FILE;
    if (!success) rule(data.length === 0, `data with the error status ${sw(status)}`);
    /** The errors that apply (any one of them is a valid answer), or none: then the command must succeed. */
    const expectError = (errors: number[]): boolean => {
      if (errors.length === 0) return false;
      rule(errors.includes(status), `status ${sw(status)}, expected ${errors.map(sw).join(' or ')}`);
      return true;
    };
    if (command.length < 4) return expectError([SW_WRONG_LENGTH]), broken;
    const [cla, ins, p1, p2] = [command[0]!, command[1]!, command[2]!, command[3]!];
    if (cla !== 0x00) return expectError([SW_CLA]), broken;
    const cc = typeof this.cc === 'object' ? this.cc : null;
    switch (ins) {
      case 0xa4: {
        const lc = command[4];
        if (lc === undefined || (command.length !== 5 + lc && command.length !== 6 + lc)) return expectError([SW_WRONG_LENGTH]), broken;
        const name = Array.from(command).slice(5, 5 + lc);
        rule(data.length === 0, 'SELECT answered with data (T4T: no FCI)');
        if (p1 === 0x04) {
          if (expectError(p2 === 0x00 || p2 === 0x0c ? [] : [...SW_WRONG_P1P2, SW_NOT_FOUND])) return broken;
          const aid = hexOf(name) === hexOf(T4T_AID);
          if (expectError(aid ? [] : [SW_NOT_FOUND])) return broken;
          rule(status === SW_OK, `SELECT of the NDEF Tag Application answered ${sw(status)}`);
          this.appSelected = true;
          this.file = null;
          return broken;
        }
        if (p1 === 0x00) {
          if (expectError(p2 === 0x00 || p2 === 0x0c ? [] : [...SW_WRONG_P1P2, SW_NOT_FOUND])) return broken;
          if (expectError(this.appSelected ? [] : [SW_NOT_FOUND])) return broken;
          if (expectError(lc === 2 ? [] : [SW_WRONG_LENGTH, SW_NOT_FOUND])) return broken;
          const id = (name[0]! << 8) | name[1]!;
          const file = id === T4T_CC_FILE ? 'cc' : cc ? (id === cc.fileId ? 'ndef' : null) : status === SW_OK ? 'ndef' : null;
          if (expectError(file ? [] : [SW_NOT_FOUND])) return broken;
          rule(status === SW_OK, `SELECT of file ${id.toString(16)} answered ${sw(status)}`);
          this.file = file;
          return broken;
        }
        return expectError([...SW_WRONG_P1P2, SW_NOT_FOUND]), broken;
      }
      case 0xb0: {
        const errors: number[] = [];
        if (this.file === null) errors.push(SW_NO_FILE);
        if (command.length !== 5) errors.push(SW_WRONG_LENGTH);
        if (p1 & 0x80) errors.push(...SW_WRONG_P1P2);
        const ne = command[4] === 0 ? 256 : (command[4] ?? 0);
        const offset = ((p1 & 0x7f) << 8) | p2;
        const size = this.file === 'cc' ? (this.ccBytes?.length ?? null) : cc ? cc.fileSize : null;
        if (size !== null && offset >= size && !(p1 & 0x80)) errors.push(SW_OFFSET);
        // Le over MLe: refused (wrong length), or answered with at most MLe bytes.
        if (cc && ne > cc.mle && !success) errors.push(SW_WRONG_LENGTH);
        // Before the capability container was read its limits are unknown: a length or offset refusal may be right.
        if (!cc && !success && errors.length === 0) errors.push(SW_WRONG_LENGTH, SW_OFFSET);
        if (expectError(errors)) return broken;
        rule(success, `READ BINARY answered ${sw(status)}`);
        if (cc) rule(data.length <= cc.mle, `READ BINARY answered ${data.length} bytes, more than MLe ${cc.mle}`);
        if (status === SW_OK) rule(data.length === ne, `READ BINARY answered ${data.length} bytes with 90 00, Le asked ${ne}`);
        if (status === SW_END_OF_FILE) {
          rule(data.length > 0 && data.length < ne, `READ BINARY answered ${data.length} bytes with 62 82, Le asked ${ne}`);
          if (size !== null) rule(offset + data.length === size, `62 82 (end of file) before the end of the file (${offset + data.length} of ${size})`);
        }
        if (this.file === 'cc') {
          if (offset === 0 && data.length >= 15) {
            const parsed = capabilityContainer(data);
            rule(typeof parsed === 'object', `the capability container is invalid: ${JSON.stringify(parsed)}`);
            if (!this.ccBytes) {
              this.cc = parsed;
              this.ccBytes = data.slice(0, (data[0]! << 8) | data[1]!);
            }
          }
          if (this.ccBytes) rule(data.every((b, i) => b === this.ccBytes![offset + i]), 'the capability container changed between reads');
        } else {
          data.forEach((b, i) => {
            const k = this.known.get(offset + i);
            if (k !== undefined) rule(b === k, `byte ${offset + i} of the NDEF file reads ${b}, earlier ${k}`);
            this.known.set(offset + i, b);
          });
          if (offset === 0 && data.length >= 2 && cc) rule(((data[0]! << 8) | data[1]!) <= cc.fileSize - 2, 'NLEN larger than the file');
        }
        return broken;
      }
      case 0xd6: {
        const lc = command[4];
        const errors: number[] = [];
        if (this.file === null) errors.push(SW_NO_FILE);
        if (lc === undefined || command.length !== 5 + lc || lc === 0) errors.push(SW_WRONG_LENGTH);
        if (this.file === 'cc') errors.push(...SW_READ_ONLY);
        if (p1 & 0x80) errors.push(...SW_WRONG_P1P2);
        const offset = ((p1 & 0x7f) << 8) | p2;
        if (cc && lc !== undefined && lc > cc.mlc) errors.push(SW_WRONG_LENGTH);
        if (cc && this.file === 'ndef' && lc !== undefined) {
          if (offset >= cc.fileSize) errors.push(SW_OFFSET);
          if (offset + lc > cc.fileSize) errors.push(SW_WRONG_LENGTH, SW_OFFSET);
          // An NLEN over the file's capacity: refused, or taken as written.
          const written = Array.from(command).slice(5);
          const nlenAt = (i: number) => (offset <= i && i < offset + written.length ? written[i - offset]! : this.known.get(i));
          const hi = nlenAt(0);
          const lo = nlenAt(1);
          if (offset < 2 && hi !== undefined && lo !== undefined && ((hi << 8) | lo) > cc.fileSize - 2 && status !== SW_OK) errors.push(SW_WRONG_LENGTH);
        }
        // Before the capability container was read its limits are unknown: a length refusal may be right (Lc over MLc),
        // also where another error applies (a write to the read-only capability container); an offset refusal where
        // nothing else does.
        if (!cc && status !== SW_OK) errors.push(SW_WRONG_LENGTH, ...(errors.length === 0 ? [SW_OFFSET] : []));
        if (expectError(errors)) return broken;
        rule(status === SW_OK && data.length === 0, `UPDATE BINARY answered ${hexOf(response)}`);
        Array.from(command).slice(5).forEach((b, i) => this.known.set(offset + i, b));
        return broken;
      }
      default:
        return expectError([SW_INS]), broken;
    }
  }
}

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
