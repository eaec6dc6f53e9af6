/**
 * Whether the file system that holds the database has room: a write refused for want of space (SQLite's
 * SQLITE_FULL, or ENOSPC from the file system) marks it full, the next commit that succeeds marks it writable again.
 * The database is the only writer of the data directory that matters, so its writes are the measurement: there is
 * no probe that could say "free" while a real write would still fail (an empty commit needs no space).
 */
export interface StorageState {
  /** Since when (ms, the database's clock) writes fail for want of space; null: they do not. */
  readonly fullSince: number | null;
  /** Calls `listener` on every change between full and writable; answers the call that removes it. */
  onChange(listener: (full: boolean) => void): () => void;
}

const FULL_CODES = new Set(['SQLITE_FULL', 'ENOSPC']);

/** Whether `err` (libsql's error or its cause, a file-system error) says the disk is full. */
export function isStorageFull(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && FULL_CODES.has(code)) return true;
  }
  return false;
}

/** The state the write queue keeps up to date (`wrote` after each commit, `failed` with each write's error). */
export function createStorageState(now: () => number) {
  let fullSince: number | null = null;
  const listeners = new Set<(full: boolean) => void>();
  const change = (full: boolean) => {
    for (const listener of [...listeners]) listener(full);
  };
  return {
    state: {
      get fullSince() {
        return fullSince;
      },
      onChange(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    } satisfies StorageState as StorageState,
    /** A commit succeeded: there is room again. */
    wrote(): void {
      if (fullSince === null) return;
      fullSince = null;
      change(false);
    },
    /** A write failed with `err`: full when it says so. */
    failed(err: unknown): void {
      if (fullSince !== null || !isStorageFull(err)) return;
      fullSince = now();
      change(true);
    },
  };
}
