import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnyStateNode } from 'xstate';
import { beforeAll, describe, expect, test } from 'vitest';
import { controllerMachine } from '../machines/main-thread.js';
import { coreMachine } from '../machines/core.js';
import { statePath, transitionTable } from '../machines/transitions.js';
import { CHART_BASELINES, chartedMachines, chartMetrics, renderChartFiles, toDot, toMermaid } from '../services/machine-charts.js';

const dir = join(import.meta.dirname, '..', 'docs', 'charts');
let generated: Map<string, string>;
beforeAll(async () => {
  generated = await renderChartFiles();
});

const allPaths = (node: AnyStateNode): string[] => (Object.values(node.states) as AnyStateNode[]).flatMap((child) => [statePath(child), ...allPaths(child)]);

test('docs/charts/ holds exactly the generated charts (run `npm run charts` after changing a machine)', () => {
  expect(readdirSync(dir).sort()).toEqual([...generated.keys()].sort());
  for (const [name, text] of generated) expect(readFileSync(join(dir, name), 'utf8'), name).toBe(text);
});

test("one chart per actor: each thread's root and every machine it invokes, each with its systemId", () => {
  const charts = chartedMachines();
  const main = controllerMachine.root.invoke.map((i) => i.systemId);
  const core = coreMachine.root.invoke.map((i) => i.systemId);
  expect(charts.map((c) => c.systemId)).toEqual(['controller', ...main, 'core', ...core]);
  expect(charts.map((c) => c.systemId)).toEqual(expect.arrayContaining(['session', 'chargeCycle', 'pairing', 'nfcLink']));
});

describe.each(chartedMachines().map((c) => [c.id, c] as const))('chart of %s', (_id, chart) => {
  test('every state is an SVG element whose id is its path; every transition with a target is an edge', () => {
    const svg = generated.get(`${chart.file}.svg`)!;
    // Graphviz writes `-` as `&#45;`; a browser reads the id with the entity decoded.
    const ids = new Set([...svg.matchAll(/<g id="([^"]+)"/g)].map((m) => m[1]!.replace(/&#45;/g, '-')));
    for (const path of allPaths(chart.machine.root)) expect(ids, path).toContain(path);
    transitionTable(chart.machine).forEach((row, i) => {
      if (row.targets.length) expect(ids, row.key).toContain(`transition-${i + 1}`);
    });
  });

  test('the Mermaid text declares every state and transition with a target', () => {
    const mermaid = toMermaid(chart.machine);
    for (const path of allPaths(chart.machine.root)) expect(mermaid).toContain(` as ${path.replace(/\./g, '_')}`);
    const edges = transitionTable(chart.machine).reduce((n, r) => n + r.targets.length, 0);
    expect(mermaid.match(/ --> (?!\[\*\])/g)?.length ?? 0).toBe(edges + (mermaid.match(/\[\*\] -->/g)?.length ?? 0));
  });
});

test('the charge cycle shows compound states, guards, resolved and named delays, always and actions', () => {
  const dot = toDot(chartedMachines().find((c) => c.id === 'chargeCycle')!.machine);
  expect(dot).toContain('subgraph "cluster_operative.session.transaction"');
  expect(dot).toContain('after powerCut (6 s)');
  expect(dot).toContain('after authTimeout"');
  expect(dot).toContain('always [unplugged]');
  expect(dot).toContain('TAG [knownTag] / authorizeByTag, acceptTag');
  expect(dot).toContain('tags: contactor');
  expect(dot).toContain('tags: pwm');
  expect(dot).toContain('entry / startTransaction');
});

test('the session chart draws its login rules once, on the state enclosing them; the NFC link chart its parallel state; the pairing chart its 60 s', () => {
  const charts = chartedMachines();
  const session = toDot(charts.find((c) => c.id === 'session')!.machine);
  expect(session).toContain('label="login\\nLOGIN [withoutToken] / recordOutcome\\nLOGIN [loginsThrottled]');
  expect(session).toContain(
    '"anchor:login" -> "login.active" [id="transition-4", label="LOGIN [credentialsMatch] / spendToken, startSession, recordOutcome", ltail="cluster_login"]',
  );
  expect(toDot(charts.find((c) => c.id === 'nfcLink')!.machine)).toContain('label="established (parallel)');
  expect(toDot(charts.find((c) => c.id === 'pairing')!.machine)).toContain('after pairingDuration (60 s)');
  expect(toDot(charts.find((c) => c.id === 'controller')!.machine)).toContain('invoke pairing (systemId pairing)');
  expect(toDot(charts.find((c) => c.id === 'chargePointCore')!.machine)).toContain('invoke chargeCycle (systemId chargeCycle)');
});

test('each rule drawn once: no two states joined by more than one edge for the same trigger, in any chart', () => {
  for (const chart of chartedMachines()) expect(chartMetrics(chart.machine).duplicates, chart.id).toEqual([]);
});

/** Events the charge cycle took up after the baseline (a user's start, the phase switch's opening): new edges, not redrawn ones. */
const EVENTS_SINCE_BASELINE = ['AUTHORIZE', 'OPEN_CONTACTOR'];

test('the charge cycle draws at most half the edges it drew before its rules were drawn once', () => {
  const machine = chartedMachines().find((c) => c.id === 'chargeCycle')!.machine;
  const now = chartMetrics(machine);
  const added = transitionTable(machine)
    .filter((r) => EVENTS_SINCE_BASELINE.includes(r.trigger))
    .reduce((n, r) => n + r.targets.length, 0);
  expect(added).toBe(4);
  const before = CHART_BASELINES.chargeCycle!.metrics;
  expect(now.drawn - added).toBeLessThanOrEqual(before.drawn / 2);
  expect(now.edges - added).toBeLessThanOrEqual(before.edges / 2);
});
