/**
 * The design's layers as rules (`npm run deps`, run before the tests by `npm test`):
 * bin/ → api/ → services/ → machines/ → drivers/, db/, one way, no circles (type-only imports included).
 * Paths are relative to where it runs, so the same rules check test/fixtures/layers (test/layers.test.ts).
 */
const path = require('node:path');

const APP = '^(bin|api|services|machines|drivers|db)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle (type-only imports count: they tie the files together for a reader all the same).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'dev-tools-apart',
      severity: 'error',
      comment: 'Development tools (bin/dev/: the central system, benches, generators) are never part of the runtime.',
      from: { path: '^', pathNot: '^bin/dev/' },
      to: { path: '^bin/dev/' },
    },
    {
      name: 'api-not-up',
      severity: 'error',
      comment: 'api/ is below bin/: the composition root wires the API, the API does not reach it.',
      from: { path: '^api/' },
      to: { path: '^bin/' },
    },
    {
      name: 'api-no-drivers',
      severity: 'error',
      comment: 'The API never touches hardware: it reads and commands through services/.',
      from: { path: '^api/' },
      to: { path: '^drivers/' },
    },
    {
      name: 'services-not-up',
      severity: 'error',
      comment: 'services/ is below api/ and bin/.',
      from: { path: '^services/' },
      to: { path: '^(api|bin)/' },
    },
    {
      name: 'core-boundary',
      severity: 'error',
      comment: 'services/core/ runs in the safety thread: it imports only itself, machines/, drivers/ and packages.',
      from: { path: '^services/core/' },
      to: { path: APP, pathNot: '^(services/core|machines|drivers)/' },
    },
    {
      name: 'machines-pure',
      severity: 'error',
      comment: 'machines/ are pure: they import only machines/ and packages (and the roles vocabulary, db/roles.ts, a leaf).',
      from: { path: '^machines/' },
      to: { path: APP, pathNot: '^(machines/|db/roles\\.ts$)' },
    },
    {
      name: 'drivers-bottom',
      severity: 'error',
      comment: 'drivers/ are the bottom layer: bytes and pins, no domain and no storage.',
      from: { path: '^drivers/' },
      to: { path: APP, pathNot: '^drivers/' },
    },
    {
      name: 'db-bottom',
      severity: 'error',
      comment: 'db/ (schema and migrations) imports no application layer.',
      from: { path: '^db/' },
      to: { path: APP, pathNot: '^db/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: APP,
    // Type-only imports are dependencies too (a circle through types still ties the files together).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: path.join(__dirname, 'tsconfig.json') },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
