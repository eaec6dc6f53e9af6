/**
 * `node dist/bin/dev/heap-diff.js <earlier.heapsnapshot> <later.heapsnapshot> [rows]`: what grew between two V8 heap
 * snapshots of one process, by kind of object (constructor, or V8's kind for strings, code and internals), largest
 * growth of retained self size first (docs/performance.md, "Soak memory: what grew"). A snapshot runs a full
 * collection first, so both count live objects only. Taking one (node's `--heapsnapshot-signal=SIGUSR2`) stops the
 * main thread for seconds: the core's liveness watch ends the controller unless it is lifted for the probe.
 */
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** The kind an object is counted under: strings, numbers and code by V8's type, objects by constructor. */
function kindOf(type: string, name: string): string {
  if (type.endsWith('string')) return '(string)';
  if (type === 'number' || type === 'object shape') return `(${type})`;
  if (type === 'code') return `(code) ${name.slice(0, 60)}`;
  return `${type}: ${name.slice(0, 70)}`;
}

function tally(file: string): { kinds: Map<string, { count: number; bytes: number }>; bytes: number } {
  const s = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0];
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const kinds = new Map<string, { count: number; bytes: number }>();
  let bytes = 0;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const kind = kindOf(types[s.nodes[i + type]!]!, s.strings[s.nodes[i + name]!]!);
    const entry = kinds.get(kind) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += s.nodes[i + size]!;
    bytes += s.nodes[i + size]!;
    kinds.set(kind, entry);
  }
  return { kinds, bytes };
}

const [earlierFile, laterFile, rows = '30'] = process.argv.slice(2);
if (!earlierFile || !laterFile) {
  console.error('usage: node dist/bin/dev/heap-diff.js <earlier.heapsnapshot> <later.heapsnapshot> [rows]');
  process.exit(2);
}
const earlier = tally(earlierFile);
const later = tally(laterFile);
console.log(`live heap (self sizes): ${(earlier.bytes / 1e6).toFixed(2)} → ${(later.bytes / 1e6).toFixed(2)} MB`);
const none = { count: 0, bytes: 0 };
const grown = [...new Set([...earlier.kinds.keys(), ...later.kinds.keys()])].map((kind) => {
  const a = earlier.kinds.get(kind) ?? none;
  const b = later.kinds.get(kind) ?? none;
  return { kind, bytes: b.bytes - a.bytes, from: a.count, to: b.count };
});
grown.sort((x, y) => y.bytes - x.bytes);
for (const g of grown.slice(0, Number(rows)))
  console.log(`${(g.bytes / 1e3).toFixed(1).padStart(10)} kB  ${String(g.from).padStart(8)} → ${String(g.to).padEnd(8)} ${g.kind}`);
