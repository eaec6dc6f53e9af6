import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderMachineDocs } from './machine-docs.js';
import { renderSettingsDocs } from '../../services/settings/docs.js';

/** `npm run docs`: regenerates the documentation generated from code (machines, settings catalogue). */
for (const [file, render] of [
  ['charge-cycle.md', renderMachineDocs],
  ['settings.md', renderSettingsDocs],
] as const) {
  const target = fileURLToPath(new URL(`../../../docs/${file}`, import.meta.url));
  writeFileSync(target, render());
  console.log(`wrote ${target}`);
}
