/**
 * A POSIX TZ rule as a TZif file's footer holds it (RFC 8536 section 3.3, e.g. `CET-1CEST,M3.5.0,M10.5.0/3`): the
 * zone's offsets for every instant after the file's last transition, so years past the table (2040, 2100) still change
 * their clocks. services/tzif.ts reads the footer; offsets here are seconds east of UTC (POSIX writes them west).
 */

/** The day of a year a change falls on: `Jn` (1..365, 29 February never counted), `n` (0..365), `Mm.w.d`. */
type RuleDay = { kind: 'julian'; day: number } | { kind: 'zeroBased'; day: number } | { kind: 'month'; month: number; week: number; weekday: number };

/** A change of the clocks: its day and the local time of day it happens at (seconds; RFC 8536 allows -167..167 h). */
interface Change {
  day: RuleDay;
  time: number;
}

export interface PosixRule {
  /** Standard time's offset (seconds east of UTC). */
  std: number;
  /** Daylight saving time's offset and when it starts (in standard time) and ends (in daylight time); absent: none. */
  dst?: { offset: number; start: Change; end: Change };
}

const DAY_S = 86_400;
/** When DST is named without a rule, the rule glibc and tzcode assume (the US rule). */
const DEFAULT_RULE = ',M3.2.0,M11.1.0';

/** Reads `text` from the left; every read throws on a malformed rule. */
class Reader {
  i = 0;
  constructor(readonly text: string) {}
  fail(): never {
    throw new Error(`not a POSIX TZ rule: ${this.text}`);
  }
  peek = (): string => this.text[this.i] ?? '';
  done = (): boolean => this.i >= this.text.length;
  number(max: number): number {
    const m = /^\d+/.exec(this.text.slice(this.i));
    if (!m || Number(m[0]) > max) this.fail();
    this.i += m[0].length;
    return Number(m[0]);
  }
  /** A zone abbreviation: three or more letters, or `<...>` (which may hold digits and signs). */
  name(): void {
    const m = /^(?:[A-Za-z]{3,}|<[A-Za-z0-9+-]{3,}>)/.exec(this.text.slice(this.i));
    if (!m) this.fail();
    this.i += m[0].length;
  }
  /** `[+-]hh[:mm[:ss]]` in seconds; `maxHours` 24 for offsets, 167 for RFC 8536's change times. */
  time(maxHours: number): number {
    const sign = this.peek() === '-' ? -1 : 1;
    if (this.peek() === '-' || this.peek() === '+') this.i++;
    let s = this.number(maxHours) * 3600;
    for (const unit of [60, 1]) {
      if (this.peek() !== ':') break;
      this.i++;
      s += this.number(59) * unit;
    }
    return sign * s;
  }
  change(): Change {
    let day: RuleDay;
    if (this.peek() === 'J') {
      this.i++;
      day = { kind: 'julian', day: this.number(365) };
      if (day.day < 1) this.fail();
    } else if (this.peek() === 'M') {
      this.i++;
      const month = this.number(12);
      if (this.peek() !== '.') this.fail();
      this.i++;
      const week = this.number(5);
      if (this.peek() !== '.') this.fail();
      this.i++;
      const weekday = this.number(6);
      if (month < 1 || week < 1) this.fail();
      day = { kind: 'month', month, week, weekday };
    } else day = { kind: 'zeroBased', day: this.number(365) };
    let time = 2 * 3600;
    if (this.peek() === '/') {
      this.i++;
      time = this.time(167);
    }
    return { day, time };
  }
}

/** The rule of a TZ string (`std offset [dst [offset] [,start[/time],end[/time]]]`); throws on a malformed one. */
export function parsePosixRule(text: string): PosixRule {
  const r = new Reader(text);
  r.name();
  const std = 0 - r.time(24);
  if (r.done()) return { std };
  r.name();
  const offset = r.done() || r.peek() === ',' ? std + 3600 : 0 - r.time(24);
  const rules = r.done() ? new Reader(DEFAULT_RULE) : r;
  if (rules.peek() !== ',') r.fail();
  rules.i++;
  const start = rules.change();
  if (rules.peek() !== ',') r.fail();
  rules.i++;
  const end = rules.change();
  if (!rules.done() || (rules !== r && !r.done())) r.fail();
  return { std, dst: { offset, start, end } };
}

const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** The UTC second the local midnight-based day `day` of year `year` begins, read as if UTC (the offset comes after). */
function dayStart(day: RuleDay, year: number): number {
  if (day.kind === 'zeroBased') return Date.UTC(year, 0, 1) / 1000 + day.day * DAY_S;
  if (day.kind === 'julian') return Date.UTC(year, 0, 1) / 1000 + (day.day - 1 + (isLeap(year) && day.day >= 60 ? 1 : 0)) * DAY_S;
  const firstWeekday = new Date(Date.UTC(year, day.month - 1, 1)).getUTCDay();
  let date = 1 + ((day.weekday - firstWeekday + 7) % 7) + (day.week - 1) * 7;
  // Week 5 is the month's last such weekday.
  const length = new Date(Date.UTC(year, day.month, 0)).getUTCDate();
  while (date > length) date -= 7;
  return Date.UTC(year, day.month - 1, date) / 1000;
}

/**
 * The offset of UTC second `t` under the rule. The changes of the year around `t` and of the years either side are
 * ordered and the last one at or before `t` decides: that serves northern rules (start before end), southern ones
 * (end before start) and changes a time beyond 24 h pushes into the next year alike.
 */
export function posixOffset(rule: PosixRule, t: number): number {
  const dst = rule.dst;
  if (!dst) return rule.std;
  const year = new Date(t * 1000).getUTCFullYear();
  let last = -Infinity;
  let offset = rule.std;
  for (let y = year - 1; y <= year + 1; y++) {
    const start = dayStart(dst.start.day, y) + dst.start.time - rule.std;
    const end = dayStart(dst.end.day, y) + dst.end.time - dst.offset;
    // A start at the instant the year before's end (daylight time all year, RFC 8536 section 3.3.1) wins.
    if (start <= t && start >= last) {
      last = start;
      offset = dst.offset;
    }
    if (end <= t && end > last) {
      last = end;
      offset = rule.std;
    }
  }
  return offset;
}
