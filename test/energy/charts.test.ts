import { describe, expect, test } from 'vitest';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { phaseSwitchMachine } from '../../machines/phase-switch.js';
import { siteMembershipMachine } from '../../machines/site-membership.js';
import { solarMachine } from '../../machines/solar.js';
import { statePath, transitionTable } from '../../machines/transitions.js';
import { chartMetrics, renderSvg, toDot, toMermaid } from '../../services/machine-charts.js';

/**
 * The energy machines are not invoked by a root actor yet, so docs/charts/ does not list them (the charts follow the
 * invokes: services/machine-charts.ts). Until they are wired in, this checks that the chart code draws them whole:
 * every state an SVG element with its path as id, every transition with a target an edge, each rule drawn once.
 */

const MACHINES: AnyStateMachine[] = [solarMachine, phaseSwitchMachine, siteMembershipMachine];
const allPaths = (node: AnyStateNode): string[] => (Object.values(node.states) as AnyStateNode[]).flatMap((c) => [statePath(c), ...allPaths(c)]);

describe.each(MACHINES.map((m) => [m.id, m] as const))('chart of %s', (_id, machine) => {
  test('every state and every transition with a target is drawn (SVG and Mermaid); no rule twice', async () => {
    const svg = await renderSvg(toDot(machine));
    const ids = new Set([...svg.matchAll(/<g id="([^"]+)"/g)].map((m) => m[1]!.replace(/&#45;/g, '-')));
    for (const path of allPaths(machine.root)) expect(ids, path).toContain(path);
    transitionTable(machine).forEach((row, i) => {
      if (row.targets.length) expect(ids, row.key).toContain(`transition-${i + 1}`);
    });
    const mermaid = toMermaid(machine);
    for (const path of allPaths(machine.root)) expect(mermaid).toContain(` as ${path.replace(/\./g, '_')}`);
    expect(chartMetrics(machine).duplicates).toEqual([]);
  });
});
