import { pino } from 'pino';
import type { Logger } from '../logger.js';

/** Log text the diagnostics bundle keeps (the newest lines, whole; UTF-8 bytes). */
export const RECENT_LOG_BYTES = 512 * 1024;

const NEWLINE = 0x0a;

/** The newest lines the process logged, for the diagnostics bundle. */
export interface RecentLog {
  /** The kept lines, oldest first (JSON lines, as written, without their newline). */
  lines(): string[];
}

/**
 * The newest whole lines in one buffer of `capacity` bytes, allocated once: what it holds in memory is that buffer,
 * whatever was logged. (It kept the lines as the strings the logger wrote: pino builds a line by concatenation, and
 * each kept line held its pieces: about 1 kB of V8 heap for a line of 200 characters, and up to twice the budget
 * before a trim: 5.5 MB for this budget, growing through the first thousand sessions of a soak, issue 34.)
 */
export function lineRing(capacity: number) {
  const ring = Buffer.alloc(capacity);
  /** Where the oldest kept line begins, and the bytes kept from there (whole lines, each ending in a newline). */
  let start = 0;
  let used = 0;

  /** Forgets the oldest line. */
  const dropOldest = () => {
    const end = ring.indexOf(NEWLINE, start);
    // The kept bytes end in a newline: none found before the buffer's end means the line goes on from its start.
    const length = end >= 0 ? end - start + 1 : capacity - start + ring.indexOf(NEWLINE) + 1;
    start = (start + length) % capacity;
    used -= length;
  };

  return {
    push(line: string): void {
      const text = line.endsWith('\n') ? line : `${line}\n`;
      const bytes = Buffer.byteLength(text);
      if (bytes > capacity) {
        // Longer than everything kept: none of the older lines is the newest any more.
        used = 0;
        return;
      }
      while (used + bytes > capacity) dropOldest();
      const at = (start + used) % capacity;
      if (at + bytes <= capacity) ring.write(text, at);
      else {
        const encoded = Buffer.from(text);
        encoded.copy(ring, at, 0, capacity - at);
        encoded.copy(ring, 0, capacity - at);
      }
      used += bytes;
    },
    lines(): string[] {
      if (used === 0) return [];
      const text =
        start + used <= capacity
          ? ring.toString('utf8', start, start + used)
          : Buffer.concat([ring.subarray(start), ring.subarray(0, start + used - capacity)]).toString('utf8');
      return text.slice(0, -1).split('\n');
    },
  };
}

const tapped = new WeakMap<object, RecentLog>();

/**
 * Keeps the newest RECENT_LOG_BYTES of what `logger` writes (every line also goes on to its destination as before).
 * The log holds no secret (services/logger.ts), so neither does this. One tap per logger: a restart in the process
 * reuses it.
 */
export function recentLogOf(logger: Logger): RecentLog {
  const stream = (logger as unknown as Record<symbol, { write(line: string): unknown }>)[pino.symbols.streamSym]!;
  const existing = tapped.get(stream);
  if (existing) return existing;
  const kept = lineRing(RECENT_LOG_BYTES);
  const write = stream.write.bind(stream);
  stream.write = (line: string) => {
    kept.push(line);
    return write(line);
  };
  const recent: RecentLog = { lines: () => kept.lines() };
  tapped.set(stream, recent);
  return recent;
}
