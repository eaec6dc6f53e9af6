import { pino } from 'pino';
import type { Logger } from '../logger.js';

/** Log text the diagnostics bundle keeps (the newest lines, whole). */
export const RECENT_LOG_CHARS = 512 * 1024;

/** The newest lines the process logged, for the diagnostics bundle. */
export interface RecentLog {
  /** The kept lines, oldest first (JSON lines, as written). */
  lines(): string[];
}

const tapped = new WeakMap<object, RecentLog>();

/**
 * Keeps the newest RECENT_LOG_CHARS of what `logger` writes (every line also goes on to its destination as before).
 * The log holds no secret (services/logger.ts), so neither does this. One tap per logger: a restart in the process
 * reuses it.
 */
export function recentLogOf(logger: Logger): RecentLog {
  const stream = (logger as unknown as Record<symbol, { write(line: string): unknown }>)[pino.symbols.streamSym]!;
  const existing = tapped.get(stream);
  if (existing) return existing;
  let kept: string[] = [];
  let chars = 0;
  const write = stream.write.bind(stream);
  stream.write = (line: string) => {
    kept.push(line);
    chars += line.length;
    if (chars > RECENT_LOG_CHARS * 2) {
      // Trimmed in bulk (not per line): at most twice the budget is held.
      let drop = 0;
      while (chars > RECENT_LOG_CHARS) chars -= kept[drop++]!.length;
      kept = kept.slice(drop);
    }
    return write(line);
  };
  const recent: RecentLog = {
    lines: () => {
      let total = 0;
      let from = kept.length;
      while (from > 0 && total + kept[from - 1]!.length <= RECENT_LOG_CHARS) total += kept[--from]!.length;
      return kept.slice(from).map((l) => l.replace(/\n$/, ''));
    },
  };
  tapped.set(stream, recent);
  return recent;
}
