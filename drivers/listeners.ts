import type { Unsubscribe } from './types.js';

/** A listener list: every listener is called even when one throws; the first error is rethrown afterwards. */
export class Listeners<Args extends unknown[]> {
  private readonly list = new Set<(...args: Args) => void>();

  add(listener: (...args: Args) => void): Unsubscribe {
    // Wrap so the same function subscribed twice is called twice and unsubscribes independently.
    const entry = (...args: Args) => listener(...args);
    this.list.add(entry);
    return () => {
      this.list.delete(entry);
    };
  }

  emit(...args: Args): void {
    let first: { error: unknown } | undefined;
    for (const listener of [...this.list]) {
      try {
        listener(...args);
      } catch (error) {
        first ??= { error };
      }
    }
    if (first) throw first.error;
  }

  clear(): void {
    this.list.clear();
  }
}
