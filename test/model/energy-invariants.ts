/**
 * Invariants of energy management (docs/energy.md), written from the rules and IEC 61851-1, never read from
 * the machines: this module imports nothing from machines/ or services/ (as invariants.ts). Each oracle is fed what
 * the outside world did and what the machine commanded, and answers the rules broken (empty when none). The numbers
 * (thresholds, delays, bounds) are given to it as the documented parameters.
 */

// ---------------------------------------------------------------------------------------------------------------
// Phase switching: the phase contactor moves only with the main contactor open and no current offered; switches
// are at least the minimum interval apart and at most the maximum per session; each switch opens the main
// contactor once at most.

export interface PhaseSwitchBounds {
  minIntervalMs: number;
  maxPerSession: number;
}

export class PhaseSwitchSpec {
  private mainClosed = false;
  private lastChange: number | null = null;
  private changes = 0;
  private opens = 0;

  constructor(private readonly bounds: PhaseSwitchBounds) {}

  /** A new session (vehicle plugged in). */
  session(): void {
    this.changes = 0;
    this.opens = 0;
  }

  /** The main contactor's state as the plant reports it. */
  contactor(closed: boolean): void {
    this.mainClosed = closed;
  }

  /** The switch commanded the main contactor open. */
  openMain(pauseOffered: boolean): string[] {
    const broken: string[] = [];
    this.opens++;
    if (!pauseOffered) broken.push('main contactor opened by the phase switch while current was offered');
    if (this.opens > this.bounds.maxPerSession)
      broken.push(`${this.opens} main contactor openings for phase switching in one session (at most ${this.bounds.maxPerSession})`);
    return broken;
  }

  /** The phase contactor moved (from one phase count to another). */
  phaseChange(at: number, pauseOffered: boolean): string[] {
    const broken: string[] = [];
    if (this.mainClosed) broken.push('phase contactor moved with the main contactor closed');
    if (!pauseOffered) broken.push('phase contactor moved while current was offered');
    if (this.lastChange !== null && at - this.lastChange < this.bounds.minIntervalMs)
      broken.push(`phase changes ${at - this.lastChange} ms apart (at least ${this.bounds.minIntervalMs})`);
    this.changes++;
    if (this.changes > this.bounds.maxPerSession) broken.push(`${this.changes} phase changes in one session (at most ${this.bounds.maxPerSession})`);
    this.lastChange = at;
    return broken;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Solar start and stop: a start needs the surplus above the start threshold for the start delay and the minimum
// pause since the last stop; a stop needs the surplus below the stop threshold for the stop delay and the minimum
// charge time since the start. Consequence: at most 2 · ceil(1 h / (minimum charge + minimum pause)) contactor
// operations in any hour (6 with the defaults).

export interface SolarRules {
  startW: number;
  stopW: number;
  startDelayMs: number;
  stopDelayMs: number;
  minChargeMs: number;
  minPauseMs: number;
}

export class SolarSpec {
  private aboveSince: number | null = null;
  private belowSince: number | null = 0;
  private running = false;
  private startedAt: number | null = null;
  /** When the last solar stop was, null after a new session or a mode change (no pause owed). */
  private stoppedAt: number | null = null;
  private solarMode = false;
  /** Times of the solar starts and stops (contactor operations caused by solar). */
  readonly operations: number[] = [];

  private readonly rules: SolarRules;
  private watts: number | null = null;

  constructor(rules: SolarRules) {
    this.rules = { ...rules };
  }

  /** Changed thresholds apply at once. */
  thresholds(at: number, change: Partial<Pick<SolarRules, 'startW' | 'stopW'>>): void {
    Object.assign(this.rules, change);
    this.surplus(at, this.watts);
  }

  /** The surplus as measured (W; null: none known) at `at`. */
  surplus(at: number, watts: number | null): void {
    this.watts = watts;
    const above = watts !== null && watts >= this.rules.startW;
    const below = watts === null || watts < this.rules.stopW;
    if (!above) this.aboveSince = null;
    else this.aboveSince ??= at;
    if (!below) this.belowSince = null;
    else this.belowSince ??= at;
  }

  /** The mode: solar or another (Fast, Min + Solar: always allowed to run). */
  mode(solar: boolean): void {
    // A mode change is the user's: what it starts or stops is not solar's, and it owes no pause.
    if (solar !== this.solarMode) [this.stoppedAt, this.running] = [null, false];
    this.solarMode = solar;
  }

  /** A new vehicle session: charging starts afresh, no pause owed. */
  session(): void {
    [this.stoppedAt, this.running] = [null, false];
  }

  /** Whether the logic lets the charge point charge after a step at `at`. */
  observe(at: number, run: boolean): string[] {
    const broken: string[] = [];
    if (!this.solarMode) {
      if (!run) broken.push('solar held charging back outside Solar mode');
      this.running = run;
      this.startedAt = run ? at : null;
      return broken;
    }
    if (run && !this.running) {
      if (this.aboveSince === null || at - this.aboveSince < this.rules.startDelayMs)
        broken.push('solar started without the surplus above the start threshold for the start delay');
      if (this.stoppedAt !== null && at - this.stoppedAt < this.rules.minPauseMs)
        broken.push(`solar started ${at - this.stoppedAt} ms after its stop (minimum pause ${this.rules.minPauseMs})`);
      this.startedAt = at;
      this.operations.push(at);
    }
    if (!run && this.running) {
      if (this.startedAt !== null && at - this.startedAt < this.rules.minChargeMs)
        broken.push(`solar stopped ${at - this.startedAt} ms after its start (minimum charge time ${this.rules.minChargeMs})`);
      if (this.belowSince === null || at - this.belowSince < this.rules.stopDelayMs)
        broken.push('solar stopped without the surplus below the stop threshold for the stop delay');
      this.stoppedAt = at;
      this.operations.push(at);
    }
    this.running = run;
    const hour = this.operations.filter((t) => t > at - 3_600_000);
    const bound = 2 * Math.ceil(3_600_000 / (this.rules.minChargeMs + this.rules.minPauseMs));
    if (hour.length > bound) broken.push(`${hour.length} solar contactor operations within an hour (at most ${bound})`);
    return broken;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Site membership: without the broker the share is the safe share, then none after the reserve time (as long as
// the peers reserve it); after connecting, the safe share until the join time passed; a higher share only while
// every peer is heard.

export interface SiteRules {
  joinMs: number;
  reserveMs: number;
}

export type ShareRule = 'none' | 'safe' | 'share' | 'pause';

export class SiteMembershipSpec {
  private on = false;
  private connectedAt: number | null = null;
  private lostAt: number | null = 0;
  private silent = false;
  /** The join time of the join under way (a changed setting applies from the next join). */
  private joinMs: number;

  private readonly rules: SiteRules;

  constructor(rules: SiteRules, connected = false) {
    this.rules = { ...rules };
    this.joinMs = rules.joinMs;
    if (connected) {
      this.connectedAt = 0;
      this.lostAt = null;
    }
  }

  /** The join time setting changed. */
  joinTime(ms: number): void {
    this.rules.joinMs = ms;
  }

  site(on: boolean, at: number): void {
    if (on && !this.on) {
      // Turned on: a charger without the broker counts its loss from now, one with it joins from now.
      if (this.connectedAt === null) this.lostAt = at;
      else [this.connectedAt, this.joinMs] = [at, this.rules.joinMs];
    }
    this.on = on;
  }

  connection(up: boolean, at: number): void {
    if (up && this.connectedAt === null) [this.connectedAt, this.lostAt, this.joinMs] = [at, null, this.rules.joinMs];
    if (!up && this.connectedAt !== null) [this.connectedAt, this.lostAt] = [null, at];
  }

  peers(silent: boolean): void {
    this.silent = silent;
  }

  /** The rule applied after a step at `at`, and whether a higher share may be applied. */
  observe(at: number, rule: ShareRule, raise: boolean): string[] {
    const broken: string[] = [];
    if (!this.on) {
      if (rule !== 'none' || raise) broken.push(`site sharing off, but the share rule is ${rule}`);
      return broken;
    }
    if (this.connectedAt === null) {
      const lostFor = at - this.lostAt!;
      const expected = lostFor >= this.rules.reserveMs ? 'pause' : 'safe';
      if (rule !== expected) broken.push(`broker lost for ${lostFor} ms: ${rule} instead of ${expected}`);
    } else if (at - this.connectedAt < this.joinMs) {
      if (rule !== 'safe') broken.push(`joining for ${at - this.connectedAt} ms: ${rule} instead of the safe share`);
    } else if (rule !== 'share') broken.push(`a member with the broker: ${rule} instead of the computed share`);
    const mayRaise = this.connectedAt !== null && at - this.connectedAt >= this.joinMs && !this.silent;
    if (raise && !mayRaise) broken.push('a higher share allowed while joining, without the broker, or with a peer silent');
    if (!raise && mayRaise && rule === 'share') broken.push('a higher share held back with every peer heard');
    return broken;
  }
}
