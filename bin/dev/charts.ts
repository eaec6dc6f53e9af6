import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChartFiles } from '../../services/machine-charts.js';

/** `npm run charts`: regenerates docs/charts/ (SVG, DOT and Mermaid per machine, README.md) from the machines. */
const dir = fileURLToPath(new URL('../../../docs/charts/', import.meta.url));
mkdirSync(dir, { recursive: true });
const files = await renderChartFiles();
// Charts of machines that no longer exist go too.
for (const name of readdirSync(dir)) if (!files.has(name)) rmSync(join(dir, name));
for (const [name, text] of files) writeFileSync(join(dir, name), text);
console.log(`wrote ${files.size} files to ${dir}`);
