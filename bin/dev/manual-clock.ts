import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Clock } from '../../services/core/clock.js';

interface Timer {
  id: number;
  due: number;
  seq: number;
  fn: (...args: unknown[]) => void;
}

/**
 * A clock for tests: time moves only when the test says so. Timers fire in order of their due time, each with the
 * clock set to that time, including timers armed by other timers (xstate's SimulatedClock fires only those due before
 * the step began). `advance` also lets promises and I/O run between timers, so asynchronous loops (a meter poll that
 * awaits a read and re-arms itself) keep pace with the clock.
 */
export class ManualClock implements Clock {
  private time: number;
  private timers: Timer[] = [];
  private nextId = 1;
  private seq = 0;

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ id, due: this.time + Math.max(0, ms), seq: this.seq++, fn });
    return id;
  }

  clearTimeout(id: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== id);
  }

  /** Timers still armed. */
  pending(): number {
    return this.timers.length;
  }

  private takeDue(until: number): Timer | undefined {
    let next: Timer | undefined;
    for (const t of this.timers) if (t.due <= until && (!next || t.due < next.due || (t.due === next.due && t.seq < next.seq))) next = t;
    if (next) this.timers = this.timers.filter((t) => t !== next);
    return next;
  }

  /** Moves time forward synchronously, firing every timer due on the way in order. */
  increment(ms: number): void {
    const until = this.time + ms;
    for (let t = this.takeDue(until); t; t = this.takeDue(until)) {
      this.time = t.due;
      t.fn();
    }
    this.time = until;
  }

  /** Moves time forward, firing due timers in order and letting promises and I/O settle after each. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    await settle();
    for (let t = this.takeDue(until); t; t = this.takeDue(until)) {
      this.time = t.due;
      t.fn();
      await settle();
    }
    this.time = until;
    await settle();
  }
}

/** Lets pending promise callbacks and completed I/O run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await nextMacrotask();
}
