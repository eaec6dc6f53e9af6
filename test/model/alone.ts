import { createActor, type AnyActorRef, type AnyStateMachine, type AnyStateNode, type EventObject } from 'xstate';
import { expect } from 'vitest';
import { ManualClock } from '../clock.js';
import type { CoverageRecorder, ModelPath } from './model.js';

/**
 * Model-based tests of a machine that is not wired into the controller yet (the energy machines): each generated
 * path runs on a real actor of the machine, with its effects provided by the test's plant and its delays run by a
 * manual clock (the actor clock, as in the controller). After every step the actor must be where the model is.
 */

/** Delayed events of the active states, as `xstate.after.<delay>.<state id>`. */
export function activeTimers(snapshot: { _nodes?: AnyStateNode[] }): string[] {
  return (snapshot._nodes ?? []).flatMap((n) => [...n.transitions.keys()].filter((k) => k.startsWith('xstate.after.')));
}

/**
 * A timer event is offered only while it is the only timer running: time then moves by its full delay (the clock
 * moves only at timer events), and no other timer fires on the way. Every timed transition is still taken, with
 * the other regions in some state.
 */
export function soleTimer(snapshot: { _nodes?: AnyStateNode[] }): EventObject[] {
  const timers = activeTimers(snapshot);
  return timers.length === 1 ? [{ type: timers[0]! }] : [];
}

/**
 * For machines whose parallel regions run timers at once (solar): the timer with the shortest delay is offered (by
 * the context's delays). Time then moves to the first timer due on the actor's clock; the comparison with the model
 * after the step fails should that be another timer (a path whose timers were armed at different times).
 */
export const shortestTimer =
  (machine: AnyStateMachine) =>
  (snapshot: { _nodes?: AnyStateNode[]; context: unknown }): EventObject[] => {
    const delays = machine.implementations.delays as Record<string, number | ((a: { context: unknown }) => number)>;
    const ms = (type: string) => {
      const d = delays[/^xstate\.after\.([^.]+)\./.exec(type)![1]!]!;
      return typeof d === 'number' ? d : d({ context: snapshot.context });
    };
    const timers = activeTimers(snapshot).sort((a, b) => ms(a) - ms(b));
    if (timers.length > 1 && ms(timers[0]!) === ms(timers[1]!)) return [];
    return timers.length ? [{ type: timers[0]! }] : [];
  };

export const stepName = (e: EventObject): string => (e.type.startsWith('xstate.after.') ? `after ${e.type.split('.')[2]}` : JSON.stringify(e));

export const pathName = (p: ModelPath<EventObject>): string =>
  p.steps
    .slice(1)
    .map((s) => stepName(s.event))
    .join(' → ') || '(initial)';

/**
 * Runs a path on a real actor: `machine` (with the plant's effects provided), `id` for the coverage recorder. `step`
 * is called after each event with the actor, the model's snapshot and the clock; the actor's state and context must
 * equal the model's.
 */
export function runAlone<E extends EventObject>(opts: {
  machine: AnyStateMachine;
  id: string;
  path: ModelPath<E>;
  input: unknown;
  coverage?: CoverageRecorder;
  clock?: ManualClock;
  step?: (at: string, actor: AnyActorRef, model: any, event: E, clock: ManualClock) => void;
}): void {
  const clock = opts.clock ?? new ManualClock(0);
  // The due time of every timer armed and not yet fired or cancelled: the one a timer event fires.
  const due = new Map<unknown, number>();
  const [arm, disarm] = [clock.setTimeout.bind(clock), clock.clearTimeout.bind(clock)];
  clock.setTimeout = (fn, ms) => {
    const id: unknown = arm((...args: unknown[]) => {
      due.delete(id);
      fn(...args);
    }, ms);
    due.set(id, clock.now() + ms);
    return id;
  };
  clock.clearTimeout = (id) => {
    due.delete(id);
    disarm(id);
  };
  const actor = createActor(opts.machine, { id: opts.id, clock, input: opts.input, ...(opts.coverage ? { inspect: opts.coverage.inspect } : {}) } as never);
  actor.start();
  try {
    for (const [i, step] of opts.path.steps.slice(1).entries()) {
      const event = step.event;
      if (event.type.startsWith('xstate.after.')) {
        expect(due.size, `step ${i + 1}: a timer armed`).toBeGreaterThan(0);
        clock.increment(Math.min(...due.values()) - clock.now());
      } else actor.send(event);
      const at = `step ${i + 1}: ${stepName(event)}`;
      const real = actor.getSnapshot();
      expect({ at, value: real.value, context: real.context }).toEqual({ at, value: step.state.value, context: step.state.context });
      opts.step?.(at, actor, step.state, event, clock);
    }
  } finally {
    actor.stop();
  }
}
