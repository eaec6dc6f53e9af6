import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderMachineDocs } from '../services/machine-docs.js';

/** `npm run docs`: regenerates docs/charge-cycle.md from the machines. */
const target = fileURLToPath(new URL('../../docs/charge-cycle.md', import.meta.url));
writeFileSync(target, renderMachineDocs());
console.log(`wrote ${target}`);
