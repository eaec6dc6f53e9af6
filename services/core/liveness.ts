/**
 * How one thread watches the other (the main thread the core, the core the main thread): every message heard from
 * it counts, and a timer asks every HEARTBEAT_MS whether it has been silent too long. A thread that was itself held
 * up (its timer ran late: starved of CPU, or busy) gives no verdict on that turn: the other side's messages may be
 * waiting unread behind the very timer that asks, and are read before the next turn.
 */
export function createSilenceWatch(intervalMs: number, limitMs: number, now: () => number = () => performance.now()) {
  let heard = now();
  let checked = now();
  return {
    /** A message came from the other thread. */
    heard(): void {
      heard = now();
    },
    /** Starts watching afresh (nothing heard is held against the other side). */
    reset(): void {
      heard = now();
      checked = heard;
    },
    /** How long the other thread has been silent, when over the limit and this thread was on time; else undefined. */
    silence(): number | undefined {
      const t = now();
      const late = t - checked > 2 * intervalMs;
      checked = t;
      if (late) return undefined;
      const silent = t - heard;
      return silent > limitMs ? silent : undefined;
    },
  };
}
