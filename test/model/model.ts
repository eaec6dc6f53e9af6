import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createActor, transition, type AnyStateMachine, type AnyStateNode, type EventObject, type InspectionEvent } from 'xstate';
import { getShortestPaths, type StatePath } from 'xstate/graph';
import { statePath, takenKey, transitionTable } from '../../machines/transitions.js';
import type { ManualClock } from '../clock.js';

/**
 * Model-based testing: paths generated from a machine with xstate/graph, chosen to cover every state and
 * transition, then executed against the running controller on simulated hardware (by the test files, through the
 * API and /sim). Coverage is measured on the controller's own actors (inspection), not assumed from the plan.
 */

export type ModelPath<E extends EventObject> = StatePath<any, E>;

/**
 * Atomic states of a machine (their paths) where an actor can rest: transient states, left at once by an
 * unguarded `always` transition, never appear in a snapshot (their transitions are covered instead).
 */
export function atomicStates(machine: AnyStateMachine): string[] {
  const out: string[] = [];
  const visit = (node: AnyStateNode) => {
    const children = Object.values(node.states) as AnyStateNode[];
    const transient = (node.always ?? []).some((t: { guard?: unknown }) => t.guard === undefined);
    if (children.length === 0 && node.type !== 'history' && !transient) out.push(statePath(node));
    children.forEach(visit);
  };
  visit(machine.root);
  return out;
}

/** The atomic state paths a snapshot is in. */
export function activeStates(snapshot: { _nodes?: AnyStateNode[] }): string[] {
  return (snapshot._nodes ?? []).filter((n) => Object.keys(n.states).length === 0).map((n) => statePath(n));
}

/** The transition keys and atomic states each path takes when replayed on the machine alone (for planning). */
function replay<E extends EventObject>(machine: AnyStateMachine, path: ModelPath<E>, input: unknown) {
  const keys = new Set<string>();
  const states = new Set<string>();
  const inspect = (e: InspectionEvent) => {
    if (e.type === '@xstate.microstep') for (const t of (e as any)._transitions) keys.add(takenKey(t));
    if (e.type === '@xstate.snapshot') activeStates(e.snapshot as never).forEach((s) => states.add(s));
  };
  const actor = createActor(machine, { input, inspect } as never);
  actor.start();
  for (const step of path.steps) actor.send(step.event);
  actor.stop();
  return { keys, states };
}

/**
 * Shortest paths to every reachable (state, context) of the model, reduced greedily to a set that still takes every
 * transition of the table and reaches every atomic state, except those listed as `unreachable` with a reason.
 * `candidates`: every path before the reduction (each reachable (state, context), then each event possible there),
 * for checks on the machine alone, which are cheap enough to take them all.
 */
export function planPaths<E extends EventObject>(
  machine: AnyStateMachine,
  opts: { events: (snapshot: any) => E[]; input?: unknown; serializeState?: (s: any) => string; unreachable?: Record<string, string> },
): { paths: ModelPath<E>[]; planned: { keys: Set<string>; states: Set<string> }; candidates: ModelPath<E>[] } {
  const all = getShortestPaths(machine, {
    events: opts.events,
    input: opts.input,
    serializeState: opts.serializeState ?? ((s: any) => JSON.stringify([s.value, s.context])),
  } as never) as ModelPath<E>[];
  // Shortest paths reach every state but not every transition (an edge back to a state already reached is on no
  // shortest path): each path is also extended by every event possible at its end.
  const extended = all.flatMap((p) => [
    p,
    ...opts
      .events(p.state)
      .map((event) => ({ ...p, steps: [...p.steps, { event, state: transition(machine, p.state, event as never)[0] }], weight: p.weight + 1 })),
  ]);
  const replays = extended.map((p) => ({ path: p, ...replay(machine, p, opts.input) })).sort((a, b) => a.path.steps.length - b.path.steps.length);
  const needKeys = transitionTable(machine)
    .map((r) => r.key)
    .filter((k) => !(opts.unreachable && k in opts.unreachable));
  const needStates = atomicStates(machine);
  const chosen: typeof replays = [];
  const keys = new Set<string>();
  const states = new Set<string>();
  const take = (r: (typeof replays)[number]) => {
    chosen.push(r);
    r.keys.forEach((k) => keys.add(k));
    r.states.forEach((s) => states.add(s));
  };
  for (const k of needKeys)
    if (!keys.has(k)) {
      const r = replays.find((x) => x.keys.has(k));
      if (r) take(r);
    }
  for (const s of needStates)
    if (!states.has(s)) {
      const r = replays.find((x) => x.states.has(s));
      if (r) take(r);
    }
  return { paths: chosen.map((c) => c.path), planned: { keys, states }, candidates: extended };
}

/** What the controller's actors did while the paths ran: transitions taken and atomic states reached, per actor id. */
export class CoverageRecorder {
  readonly transitions = new Map<string, Set<string>>();
  readonly states = new Map<string, Set<string>>();

  readonly inspect = (e: InspectionEvent): void => {
    const id = (e.actorRef as { id?: string }).id ?? '';
    if (e.type === '@xstate.microstep') {
      const set = this.transitions.get(id) ?? new Set<string>();
      this.transitions.set(id, set);
      for (const t of (e as any)._transitions) set.add(takenKey(t));
    }
    if (e.type === '@xstate.snapshot') {
      const set = this.states.get(id) ?? new Set<string>();
      this.states.set(id, set);
      activeStates(e.snapshot as never).forEach((s) => set.add(s));
    }
  };

  /** Coverage of one machine by the actor `id`; `unreachable` transitions are reported apart, with their reason. */
  report(id: string, machine: AnyStateMachine, paths: number, unreachable: Record<string, string> = {}) {
    const table = transitionTable(machine).map((r) => r.key);
    const states = atomicStates(machine);
    const tDone = this.transitions.get(id) ?? new Set();
    const sDone = this.states.get(id) ?? new Set();
    const needed = table.filter((k) => !(k in unreachable));
    return {
      machine: machine.id,
      paths,
      states: { covered: states.filter((s) => sDone.has(s)).length, total: states.length, missing: states.filter((s) => !sDone.has(s)) },
      transitions: { covered: needed.filter((k) => tDone.has(k)).length, total: needed.length, missing: needed.filter((k) => !tDone.has(k)) },
      excluded: unreachable,
    };
  }
}

export type CoverageReport = ReturnType<CoverageRecorder['report']>;

const REPORT_FILE = join(import.meta.dirname, '..', '..', 'test-results', 'model-coverage.json');

/** Prints the coverage of one machine and merges it into test-results/model-coverage.json. */
export function writeReport(report: CoverageReport): void {
  mkdirSync(join(REPORT_FILE, '..'), { recursive: true });
  const all = existsSync(REPORT_FILE) ? (JSON.parse(readFileSync(REPORT_FILE, 'utf8')) as Record<string, CoverageReport>) : {};
  all[report.machine] = report;
  writeFileSync(REPORT_FILE, `${JSON.stringify(all, null, 2)}\n`);
  console.log(
    `model coverage ${report.machine}: ${report.paths} paths, states ${report.states.covered}/${report.states.total}, ` +
      `transitions ${report.transitions.covered}/${report.transitions.total}` +
      (Object.keys(report.excluded).length ? ` (+${Object.keys(report.excluded).length} excluded: ${Object.values(report.excluded).join('; ')})` : ''),
  );
}

/** A deliberately broken timer for MBT_BREAK: timers of exactly `ms` are armed but never fire. */
export function timerNeverFires(clock: ManualClock, ms: number): void {
  const setTimeout = clock.setTimeout.bind(clock);
  clock.setTimeout = (fn, delay) => setTimeout(delay === ms ? () => undefined : fn, delay);
}

/** The MBT_BREAK fault chosen for this run, checked against the file's list; undefined for a normal run. */
export function chosenBreak(breaks: Record<string, unknown>): string | undefined {
  const broken = process.env.MBT_BREAK;
  if (broken !== undefined && !(broken in breaks)) throw new Error(`MBT_BREAK must be one of ${Object.keys(breaks).join(', ')}`);
  return broken;
}
