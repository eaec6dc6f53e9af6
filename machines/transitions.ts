import type { AnyStateMachine, AnyStateNode } from 'xstate';

/** One transition of a machine, as documented and as covered by the scenario tests. */
export interface TransitionRow {
  /** Stable key: `<source path> | <trigger> | <guard> | <target path>`. */
  key: string;
  source: string;
  /** Event type, `always` for an eventless transition, or `after <delay>`. */
  trigger: string;
  guard: string;
  /** Target path, or `(stays)` for a transition without target. */
  target: string;
  /** Target paths (empty for a transition without target; several when it enters parallel regions). */
  targets: string[];
  actions: string[];
}

/** A guard's name (`not(x)`, `and(x, y)`, `or(x, y)` for combinations, `inline` for an anonymous function). */
export function describeGuard(guard: unknown): string {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const g = guard as { name?: string; guards?: unknown[] };
    // XState's and(), or() and not() are functions of those names with their operands in `guards`.
    if (g.guards) return `${g.name}(${g.guards.map(describeGuard).join(', ')})`;
    return g.name || 'inline';
  }
  if (typeof guard === 'object' && guard !== null && 'type' in guard) return String((guard as { type: unknown }).type);
  return 'inline';
}

/** An action's name (`inline` for an anonymous function). */
export function describeAction(action: unknown): string {
  if (typeof action === 'string') return action;
  if (typeof action === 'object' && action !== null && 'type' in action) return String((action as { type: unknown }).type);
  if (typeof action === 'function') return (action as { type?: string }).type ?? 'inline';
  return 'inline';
}

/** The path of a state node below the machine root, dot-separated (`operative.session.transaction.underLoad.charging`). */
export function statePath(node: AnyStateNode): string {
  return node.path.join('.') || '(root)';
}

/** What triggers a transition: its event type, `always`, or `after <delay>` for a delayed one. */
export function triggerOf(eventType: string): string {
  const after = /^xstate\.after\.([^.]+)\./.exec(eventType);
  return after ? `after ${after[1]}` : eventType;
}

/** Every transition of a machine, walking its state nodes in document order (always, after and event transitions). */
export function transitionTable(machine: AnyStateMachine): TransitionRow[] {
  const rows: TransitionRow[] = [];
  const visit = (node: AnyStateNode) => {
    const definitions = [...(node.always ?? []), ...[...node.transitions.values()].flat()];
    for (const t of definitions) {
      const source = statePath(node);
      const trigger = triggerOf((t.eventType as string) || 'always');
      const guard = describeGuard(t.guard);
      const targets = (t.target ?? []).map((n: AnyStateNode) => statePath(n));
      const target = targets.length ? targets.join(', ') : '(stays)';
      rows.push({
        key: `${source} | ${trigger} | ${guard} | ${target}`,
        source,
        trigger,
        guard,
        target,
        targets,
        actions: t.actions.map(describeAction),
      });
    }
    for (const child of Object.values(node.states)) visit(child as AnyStateNode);
  };
  visit(machine.root);
  return rows;
}

/** The key of a transition taken at run time (from an `@xstate.microstep` inspection event's `_transitions`). */
export function takenKey(t: { source: AnyStateNode; eventType: string; guard?: unknown; target?: readonly AnyStateNode[] }): string {
  const target = t.target?.length ? t.target.map((n) => statePath(n)).join(', ') : '(stays)';
  return `${statePath(t.source)} | ${triggerOf(t.eventType || 'always')} | ${describeGuard(t.guard)} | ${target}`;
}
