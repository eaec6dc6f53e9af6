import { parsePosixRule, posixOffset, type PosixRule } from './posix-tz.js';

/**
 * A zone's offsets from a TZif file (RFC 8536, the files of /usr/share/zoneinfo): the table of transitions and, after
 * the last one, the footer's POSIX TZ rule (services/posix-tz.ts). Read without Intl: the first Intl date format of a
 * process opens Node's ICU locale data, 6.3 MB of memory the controller would otherwise keep from its first second
 * (docs/performance.md).
 */
export interface TzifZone {
  /** Transition times (UTC seconds), ascending. */
  transitions: Float64Array;
  /** The local time type each transition begins (an index into `offsets`). */
  types: Uint8Array;
  /** Each local time type's offset (seconds east of UTC). */
  offsets: Int32Array;
  /** The rule after the last transition (version 2+ footer); absent: the last transition's type holds on. */
  footer?: PosixRule;
}

const HEADER = 44;

function fail(why: string): never {
  throw new Error(`not a TZif file: ${why}`);
}

/** The zone a TZif file holds; throws on anything else. Version 2+ files are read from their 64-bit block. */
export function parseTzif(data: Buffer): TzifZone {
  if (data.length < HEADER || data.toString('latin1', 0, 4) !== 'TZif') fail('no TZif header');
  const version = data[4]!;
  const counts = (at: number) => {
    if (data.length < at + HEADER) fail('truncated');
    const count = (field: number) => data.readUInt32BE(at + 20 + field * 4);
    return { isut: count(0), isstd: count(1), leap: count(2), time: count(3), type: count(4), char: count(5) };
  };
  const blockLength = (c: ReturnType<typeof counts>, timeSize: number) =>
    c.time * timeSize + c.time + c.type * 6 + c.char + c.leap * (timeSize + 4) + c.isstd + c.isut;

  let at = 0;
  let c = counts(0);
  let timeSize = 4;
  if (version >= 0x32) {
    at = HEADER + blockLength(c, 4);
    c = counts(at);
    timeSize = 8;
  }
  const body = at + HEADER;
  if (c.type < 1 || c.type > 256 || data.length < body + blockLength(c, timeSize)) fail('truncated or without types');

  const transitions = new Float64Array(c.time);
  for (let i = 0; i < c.time; i++) {
    transitions[i] = timeSize === 8 ? Number(data.readBigInt64BE(body + i * 8)) : data.readInt32BE(body + i * 4);
    if (i > 0 && transitions[i]! <= transitions[i - 1]!) fail('transitions out of order');
  }
  const typesAt = body + c.time * timeSize;
  const types = new Uint8Array(data.subarray(typesAt, typesAt + c.time));
  if (types.some((t) => t >= c.type)) fail('a transition to an unknown type');
  const offsets = new Int32Array(c.type);
  for (let i = 0; i < c.type; i++) offsets[i] = data.readInt32BE(typesAt + c.time + i * 6);

  const zone: TzifZone = { transitions, types, offsets };
  if (timeSize === 8) {
    // The footer: "\n<TZ string>\n" after the 64-bit block; empty when no rule covers later instants.
    const footerAt = body + blockLength(c, 8);
    const end = data.indexOf(0x0a, footerAt + 1);
    if (data[footerAt] !== 0x0a || end < 0) fail('no footer');
    const text = data.toString('latin1', footerAt + 1, end);
    if (text !== '') zone.footer = parsePosixRule(text);
  }
  return zone;
}

/** The offset (seconds east of UTC) in `zone` of UTC second `t`. */
export function tzifOffset(zone: TzifZone, t: number): number {
  const { transitions, types, offsets } = zone;
  const n = transitions.length;
  // Before the first transition (or without any): the first time type (RFC 8536 section 3.2).
  if (n === 0 || t < transitions[0]!) return n === 0 && zone.footer ? posixOffset(zone.footer, t) : offsets[0]!;
  if (t >= transitions[n - 1]!) return zone.footer ? posixOffset(zone.footer, t) : offsets[types[n - 1]!]!;
  // The last transition at or before t.
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (transitions[mid]! <= t) lo = mid;
    else hi = mid - 1;
  }
  return offsets[types[lo]!]!;
}
