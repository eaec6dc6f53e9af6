import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { controllerMachine } from '../machines/main-thread.js';
import { coreMachine } from '../machines/core.js';
import { CORE_SYSTEM_ID } from './core/protocol.js';
import { describeAction, statePath, transitionTable, type TransitionRow } from '../machines/transitions.js';

/**
 * State charts drawn from `machine.root` (compound and parallel states, guards, delays, `always` transitions,
 * invoked actors, tags, meta): DOT for Graphviz (rendered to SVG offline, in WASM) and Mermaid for Markdown.
 * `npm run charts` writes them to docs/charts/ (a test fails when they are out of date); the inspector page
 * (`/inspect`) shows the same SVGs with the active states highlighted: every state's SVG element has the state
 * path as its `id` (`operative.session.transaction.underLoad.charging`), every transition edge the id `transition-<n>`, n
 * being its row in the machine's transition table (machines/transitions.ts, as numbered in docs/charge-cycle.md).
 */

/** One machine to draw. */
export interface ChartedMachine {
  /** The machine's id (`chargeCycle`). */
  id: string;
  /** File name stem in docs/charts/ (`charge-cycle`). */
  file: string;
  /** The actor's systemId in its thread's actor system; `controller` and `core` for the two root actors. */
  systemId: string;
  machine: AnyStateMachine;
}

const kebab = (id: string) => id.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The root actors of the controller's threads: the main thread's and the charge-point core's, with their systemIds. */
export const ROOT_MACHINES: ReadonlyArray<{ machine: AnyStateMachine; systemId: string }> = [
  { machine: controllerMachine, systemId: 'controller' },
  { machine: coreMachine, systemId: CORE_SYSTEM_ID },
];

/**
 * The machines to draw: each thread's root actor and every machine it invokes, in invoke order. This is the one
 * list: a machine invoked in machines/main-thread.ts or machines/core.ts (the NFC link, …) gets its chart, its files
 * and its place on the inspector page without another change.
 */
export function chartedMachines(roots = ROOT_MACHINES): ChartedMachine[] {
  const charts: ChartedMachine[] = [];
  for (const { machine: root, systemId } of roots) {
    charts.push({ id: root.id, file: kebab(root.id), systemId, machine: root });
    const actors = (root.implementations.actors ?? {}) as Record<string, unknown>;
    for (const invoke of root.root.invoke) {
      const logic = typeof invoke.src === 'string' ? actors[invoke.src] : invoke.src;
      if (!isMachine(logic)) continue;
      charts.push({ id: logic.id, file: kebab(logic.id), systemId: invoke.systemId ?? invoke.id, machine: logic });
    }
  }
  return charts;
}

function isMachine(logic: unknown): logic is AnyStateMachine {
  return typeof logic === 'object' && logic !== null && 'root' in logic && 'implementations' in logic;
}

const children = (node: AnyStateNode) => Object.values(node.states) as AnyStateNode[];
const isCompound = (node: AnyStateNode) => children(node).length > 0;

/** Every state node of a machine (the root included) by its path. */
function statesByPath(machine: AnyStateMachine): Map<string, AnyStateNode> {
  const nodes = new Map<string, AnyStateNode>();
  const visit = (node: AnyStateNode) => {
    nodes.set(statePath(node), node);
    children(node).forEach(visit);
  };
  visit(machine.root);
  return nodes;
}

/** `60 s`, `700 ms`. */
export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** A trigger as drawn: `after pairingDuration (60 s)` where the delay is a known number, `after 700 ms` for an inline one. */
function triggerLabel(machine: AnyStateMachine, trigger: string): string {
  const after = /^after (.+)$/.exec(trigger);
  if (!after) return trigger;
  const name = after[1]!;
  if (/^\d+$/.test(name)) return `after ${formatMs(Number(name))}`;
  const delay = (machine.implementations.delays as Record<string, unknown>)[name];
  return typeof delay === 'number' ? `after ${name} (${formatMs(delay)})` : `after ${name}`;
}

/** A transition as written on an edge: `TAG [knownTag] / authorizeByTag, acceptTag`. */
function transitionLabel(machine: AnyStateMachine, row: TransitionRow): string {
  let label = triggerLabel(machine, row.trigger);
  if (row.guard) label += ` [${row.guard}]`;
  if (row.actions.length) label += ` / ${row.actions.join(', ')}`;
  return label;
}

/** Named entry/exit actions (xstate's own, such as the raise behind `after`, left out). */
function namedActions(actions: readonly unknown[] | undefined): string[] {
  return (actions ?? []).map(describeAction).filter((name) => !name.startsWith('xstate.'));
}

function invokeLabel(invoke: { src: unknown; id: string; systemId?: string | undefined }): string {
  const src = typeof invoke.src === 'string' ? invoke.src : invoke.id;
  return `invoke ${src}${invoke.systemId ? ` (systemId ${invoke.systemId})` : ''}`;
}

/** The lines describing a state beyond its name: meta, tags, entry/exit actions, invoked actors, internal transitions. */
function stateDetails(machine: AnyStateMachine, node: AnyStateNode, internal: TransitionRow[]): string[] {
  const lines: string[] = [];
  const meta = node.meta as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object') {
    const values = Object.values(meta).filter((v) => typeof v === 'string' || typeof v === 'number');
    if (values.length) lines.push(values.join(' · '));
  }
  if (node.tags.length) lines.push(`tags: ${node.tags.join(', ')}`);
  const entry = namedActions(node.entry);
  if (entry.length) lines.push(`entry / ${entry.join(', ')}`);
  const exit = namedActions(node.exit);
  if (exit.length) lines.push(`exit / ${exit.join(', ')}`);
  for (const invoke of node.invoke) lines.push(invokeLabel(invoke));
  for (const row of internal) lines.push(transitionLabel(machine, row));
  return lines;
}

const dotString = (text: string) => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

/**
 * The font the charts are laid out for and drawn in. Graphviz in WASM measures text with its own metrics tables, looked
 * up by the exact font name (a list such as `Helvetica,Arial,sans-serif` matches none and falls back to Times, narrower
 * than what a browser then draws: labels were clipped). DejaVu Sans has a table and is the default sans-serif font of
 * Debian and Raspberry Pi OS, so there the text is drawn exactly as laid out.
 */
export const CHART_FONT = 'DejaVu Sans';
/**
 * What the SVG asks the browser to draw with: DejaVu Sans (or Bitstream Vera Sans, its metric twin), else fonts that
 * are narrower for the charts' text (Arial, Helvetica, the platform's sans-serif), so a label still fits its box.
 */
export const CHART_FONT_STACK = 'DejaVu Sans,Bitstream Vera Sans,Arial,Helvetica,sans-serif';
const FONT = CHART_FONT;

/** The machine as a Graphviz digraph: clusters for compound and parallel states, one edge per transition target. */
export function toDot(machine: AnyStateMachine): string {
  const rows = transitionTable(machine);
  const internal = new Map<string, TransitionRow[]>();
  for (const row of rows) if (row.targets.length === 0) internal.set(row.source, [...(internal.get(row.source) ?? []), row]);

  const out: string[] = [
    `digraph ${dotString(machine.id)} {`,
    `  id=${dotString(`chart-${machine.id}`)};`,
    `  compound=true; rankdir=TB; newrank=true; nodesep=0.3; ranksep=0.35;`,
    `  fontname=${dotString(FONT)}; fontsize=13; labelloc=t; labeljust=l;`,
    `  node [shape=box, style="rounded,filled", fillcolor="#ffffff", color="#455a64", fontname=${dotString(FONT)}, fontsize=11];`,
    `  edge [color="#607d8b", fontname=${dotString(FONT)}, fontsize=9];`,
  ];
  const rootDetails = stateDetails(machine, machine.root, internal.get(statePath(machine.root)) ?? []);
  const title = machine.root.type === 'parallel' ? `${machine.id} (parallel)` : machine.id;
  out.push(`  label=${dotString([title, ...rootDetails].join('\n'))};`);

  /**
   * Where an edge to or from a state attaches: the state's node, or the anchor inside its cluster (its initial dot);
   * for the machine itself (a rule of the root, taken in every state), the chart's initial dot.
   */
  const anchorOf = (node: AnyStateNode) => (node === machine.root ? 'initial' : isCompound(node) ? `anchor:${statePath(node)}` : statePath(node));

  const emitInitial = (node: AnyStateNode, indent: string, id: string) => {
    const target = node.initial?.target?.[0];
    out.push(`${indent}${dotString(id)} [id=${dotString(id)}, shape=point, width=0.12, style=filled, fillcolor="#263238", label=""];`);
    if (target) {
      const lhead = isCompound(target) ? `, lhead=${dotString(`cluster_${statePath(target)}`)}` : '';
      out.push(`${indent}${dotString(id)} -> ${dotString(anchorOf(target))} [id=${dotString(`${id}-edge`)}${lhead}];`);
    }
  };

  const emit = (node: AnyStateNode, indent: string) => {
    const path = statePath(node);
    const details = stateDetails(machine, node, internal.get(path) ?? []);
    const name = String(node.key);
    if (!isCompound(node)) {
      const shape = node.type === 'final' ? ', peripheries=2' : node.type === 'history' ? ', shape=circle' : '';
      const label = node.type === 'history' ? 'H' : [name, ...details].join('\n');
      out.push(`${indent}${dotString(path)} [id=${dotString(path)}, label=${dotString(label)}${shape}];`);
      return;
    }
    const parallel = node.type === 'parallel';
    out.push(`${indent}subgraph ${dotString(`cluster_${path}`)} {`);
    out.push(`${indent}  id=${dotString(path)}; class="state${parallel ? ' parallel' : ''}";`);
    out.push(`${indent}  label=${dotString([parallel ? `${name} (parallel)` : name, ...details].join('\n'))};`);
    out.push(`${indent}  style="rounded${parallel ? ',dashed' : ''}"; color="#455a64"; fontsize=12;`);
    if (parallel) {
      out.push(`${indent}  ${dotString(`anchor:${path}`)} [id=${dotString(`anchor:${path}`)}, shape=point, style=invis, width=0.01, label=""];`);
    } else {
      // The initial pseudo-state doubles as the cluster's anchor for edges to and from the compound state.
      emitInitial(node, `${indent}  `, `anchor:${path}`);
    }
    for (const child of children(node)) emit(child, `${indent}  `);
    out.push(`${indent}}`);
  };

  if (machine.root.initial?.target?.length) emitInitial(machine.root, '  ', 'initial');
  for (const child of children(machine.root)) emit(child, '  ');
  if (children(machine.root).length === 0) {
    // A machine without states (the controller's root): one node for the actor itself.
    out.push(`  ${dotString(statePath(machine.root))} [id=${dotString(statePath(machine.root))}, label=${dotString(machine.id)}];`);
  }

  const nodes = statesByPath(machine);
  rows.forEach((row, i) => {
    const source = nodes.get(row.source)!;
    row.targets.forEach((targetPath, k) => {
      const target = nodes.get(targetPath)!;
      const attrs = [`id=${dotString(`transition-${i + 1}${k ? `-${k + 1}` : ''}`)}`, `label=${dotString(transitionLabel(machine, row))}`];
      if (isCompound(source) && source !== machine.root) attrs.push(`ltail=${dotString(`cluster_${row.source}`)}`);
      if (isCompound(target) && target !== source) attrs.push(`lhead=${dotString(`cluster_${targetPath}`)}`);
      if (row.trigger === 'always') attrs.push('style=dashed');
      out.push(`  ${dotString(anchorOf(source))} -> ${dotString(anchorOf(target))} [${attrs.join(', ')}];`);
    });
  });
  out.push('}', '');
  return out.join('\n');
}

/** A Mermaid state id: the path with dots as underscores (unique: state keys here are camelCase). */
const mermaidId = (path: string) => (path === '(root)' ? MERMAID_ROOT : path.replace(/\./g, '_'));
/** The id of the machine itself where drawn as a state (`root` is taken by Mermaid). */
const MERMAID_ROOT = 'machineRoot';
/** Mermaid label text without the characters its grammar treats specially. */
const mermaidText = (text: string) =>
  text
    .replace(/[:;#{}"]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

/**
 * The machine as a Mermaid `stateDiagram-v2`. Each transition is written inside the innermost composite state that
 * holds both its ends (Mermaid does not link states of different composites otherwise), outside a parallel state's
 * regions (a line after a region divider belongs to the last region); transitions without a target (actions only)
 * appear in the SVG only. A parallel root is drawn as one composite state named after the machine.
 */
export function toMermaid(machine: AnyStateMachine): string {
  const rows = transitionTable(machine).filter((r) => r.targets.length > 0);
  const nodes = statesByPath(machine);
  const byScope = new Map<string, string[]>();
  for (const row of rows) {
    for (const target of row.targets) {
      let scope = commonScope(row.source, target);
      while (scope !== '(root)' && nodes.get(scope)!.type === 'parallel') scope = scope.includes('.') ? scope.slice(0, scope.lastIndexOf('.')) : '(root)';
      const line = `${mermaidId(row.source)} --> ${mermaidId(target)} : ${mermaidText(transitionLabel(machine, row))}`;
      byScope.set(scope, [...(byScope.get(scope) ?? []), line]);
    }
  }
  const out = ['---', `title: ${machine.id}`, '---', 'stateDiagram-v2', `  %% Generated from machines/ by \`npm run charts\`. Do not edit.`];
  const emitChildren = (node: AnyStateNode, indent: string) => {
    const kids = children(node);
    if (node.type !== 'parallel' && node.initial?.target?.[0]) out.push(`${indent}[*] --> ${mermaidId(statePath(node.initial.target[0]))}`);
    kids.forEach((child, i) => {
      if (node.type === 'parallel' && i > 0) out.push(`${indent}--`);
      const id = mermaidId(statePath(child));
      if (isCompound(child)) {
        out.push(`${indent}state "${mermaidText(String(child.key))}${child.type === 'parallel' ? ' (parallel)' : ''}" as ${id} {`);
        emitChildren(child, `${indent}  `);
        out.push(`${indent}}`);
      } else {
        out.push(`${indent}state "${mermaidText(String(child.key))}" as ${id}`);
        if (child.type === 'final') out.push(`${indent}${id} --> [*]`);
      }
    });
    if (node.type !== 'parallel') for (const line of byScope.get(statePath(node)) ?? []) out.push(`${indent}${line}`);
  };
  if (children(machine.root).length === 0) {
    out.push(`  state "${mermaidText(machine.id)}" as ${MERMAID_ROOT}`);
    for (const invoke of machine.root.invoke) out.push(`  note right of ${MERMAID_ROOT} : ${mermaidText(invokeLabel(invoke))}`);
  } else if (machine.root.type === 'parallel') {
    out.push(`  [*] --> ${MERMAID_ROOT}`, `  state "${mermaidText(machine.id)} (parallel)" as ${MERMAID_ROOT} {`);
    emitChildren(machine.root, '    ');
    out.push('  }');
    for (const line of byScope.get('(root)') ?? []) out.push(`  ${line}`);
  } else {
    emitChildren(machine.root, '  ');
  }
  out.push('');
  return out.join('\n');
}

/**
 * The path of the innermost compound state holding both states as descendants (`(root)` at the top). A transition
 * from a state to itself or to its own descendant belongs to the source's parent.
 */
function commonScope(a: string, b: string): string {
  const left = a === '(root)' ? [] : a.split('.');
  const right = b === '(root)' ? [] : b.split('.');
  const common: string[] = [];
  for (let i = 0; i < Math.min(left.length, right.length) && left[i] === right[i]; i++) common.push(left[i]!);
  if (common.length === left.length || common.length === right.length) common.pop();
  return common.length ? common.join('.') : '(root)';
}

/** How much a chart draws: states, transitions, edges (one per transition target, plus the initial-state arrows). */
export interface ChartMetrics {
  states: number;
  /** Rows of the transition table (transitions that only run actions included). */
  transitions: number;
  /** Transitions with a target, one per target. */
  edges: number;
  /** Edges as drawn: transition edges plus the arrows from each initial dot. */
  drawn: number;
  /** `source -> target | trigger` joined by more than one edge (the same trigger twice between two states). */
  duplicates: string[];
}

export function chartMetrics(machine: AnyStateMachine): ChartMetrics {
  const rows = transitionTable(machine);
  const nodes = [...statesByPath(machine).values()];
  const initialArrows = nodes.filter((n) => isCompound(n) && n.type !== 'parallel' && n.initial?.target?.length).length;
  const pairs = new Map<string, number>();
  for (const row of rows)
    for (const target of row.targets)
      pairs.set(`${row.source} -> ${target} | ${row.trigger}`, (pairs.get(`${row.source} -> ${target} | ${row.trigger}`) ?? 0) + 1);
  const edges = rows.reduce((n, r) => n + r.targets.length, 0);
  return {
    states: nodes.length - 1,
    transitions: rows.length,
    edges,
    drawn: edges + initialArrows,
    duplicates: [...pairs].filter(([, n]) => n > 1).map(([pair]) => pair),
  };
}

/**
 * Charts measured before a restructuring, for comparison in docs/charts/README.md: the charge cycle before each rule
 * was drawn once (issue 19; commit c6ec472), when its fault and disabling checks were repeated in every stable state.
 */
export const CHART_BASELINES: Record<string, { commit: string; metrics: Omit<ChartMetrics, 'duplicates'> & { duplicates: number } }> = {
  chargeCycle: { commit: 'c6ec472', metrics: { states: 21, transitions: 82, edges: 68, drawn: 73, duplicates: 1 } },
};

let graphviz: Promise<{ dot(source: string): string }> | undefined;

/** Renders DOT to SVG with Graphviz compiled to WASM (no native graphviz, no browser, no network). */
export async function renderSvg(dot: string): Promise<string> {
  graphviz ??= import('@hpcc-js/wasm-graphviz').then(({ Graphviz }) => Graphviz.load());
  const svg = (await graphviz).dot(dot);
  // The XML prolog and doctype are left out, so the file can also be inlined into HTML.
  return svg.slice(svg.indexOf('<svg')).replaceAll(`font-family="${CHART_FONT}"`, `font-family="${CHART_FONT_STACK}"`);
}

/** Every file of docs/charts/: per machine its DOT, Mermaid and SVG, and README.md showing them. */
export async function renderChartFiles(machines = chartedMachines()): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const readme = [
    '# State charts',
    '',
    '<!-- Generated from machines/ by `npm run charts`. Do not edit. -->',
    '',
    "One chart per actor of the controller, drawn from `machine.root`: the main thread's root actor (`controller`) and",
    "every machine it invokes, then the charge-point core's root actor (`chargePointCore`, its own thread) and its machines.",
    'Boxes are states (rounded frames: compound states; dashed frames: parallel states, one region each), the dot marks',
    'the initial state; an edge reads `event [guard] / actions`, `always` (dashed edges) is an eventless transition',
    'and `after <delay>` a delayed one (60 s etc. where the delay is fixed; `authTimeout` follows its setting). A state',
    'lists its meta (systemState · authState · ocppState for the charge cycle), tags (outputs), entry/exit actions,',
    'invoked actors and the transitions that only run actions. The live view with the active states highlighted is',
    "the controller's `/inspect` page (docs/inspector.md). Sources: `.dot` (Graphviz) and `.mmd` (Mermaid).",
    '',
    'Text is laid out for DejaVu Sans, the sans-serif font of Debian and Raspberry Pi OS, and drawn in it where present',
    '(elsewhere in a narrower font, so labels still fit); `test/browser/charts.test.ts` fails on a label its box clips.',
    '',
    '## Size',
    '',
    'A rule that applies to many states is one transition of the state that encloses them, so it is drawn once. Edges:',
    'one per transition target, plus the arrows from the initial dots; "same trigger twice" counts pairs of states',
    'joined by more than one edge for the same trigger.',
    '',
    '| chart | states | transitions | edges drawn | same trigger twice |',
    '|---|---|---|---|---|',
  ];
  for (const chart of machines) {
    const m = chartMetrics(chart.machine);
    readme.push(`| ${chart.id} | ${m.states} | ${m.transitions} (${m.edges} with a target) | ${m.drawn} | ${m.duplicates.length} |`);
    const before = CHART_BASELINES[chart.id];
    if (before) {
      const b = before.metrics;
      readme.push(`| ${chart.id} before (${before.commit}) | ${b.states} | ${b.transitions} (${b.edges} with a target) | ${b.drawn} | ${b.duplicates} |`);
    }
  }
  readme.push('');
  for (const chart of machines) {
    const dot = toDot(chart.machine);
    const mermaid = toMermaid(chart.machine);
    files.set(`${chart.file}.dot`, dot);
    files.set(`${chart.file}.mmd`, mermaid);
    files.set(`${chart.file}.svg`, await renderSvg(dot));
    readme.push(
      `## ${chart.id}`,
      '',
      `Actor \`${chart.systemId}\`; files [${chart.file}.svg](${chart.file}.svg), [${chart.file}.dot](${chart.file}.dot), ` +
        `[${chart.file}.mmd](${chart.file}.mmd).`,
      '',
      `![${chart.id} state chart](${chart.file}.svg)`,
      '',
      '<details><summary>Mermaid</summary>',
      '',
      '```mermaid',
      mermaid.trimEnd(),
      '```',
      '',
      '</details>',
      '',
    );
  }
  files.set('README.md', readme.join('\n'));
  return files;
}
