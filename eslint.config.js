// ESLint (flat config): typescript-eslint's type-aware rules on the TypeScript, plain rules on the browser client and
// the .mjs scripts. Formatting is Prettier's (`npm run format`); the only layout rule here is the 160-character line.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Lines over this fail, code and comments alike (Prettier wraps code at the same width; comments are wrapped by hand). */
const maxLen = {
  '@stylistic/max-len': ['error', { code: 160, tabWidth: 2, ignoreUrls: true, ignoreRegExpLiterals: true }],
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test-results/', 'data/', '.stryker-tmp/', 'docs/', 'db/migrations/', 'api/web/client/vendor/'] },

  {
    files: ['**/*.{ts,js,mjs}'],
    plugins: { '@stylistic': stylistic },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: maxLen,
  },

  // TypeScript (tsconfig.json: machines services drivers api db bin test), with type information.
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A forgotten promise in firmware is a silent fault: every promise is awaited, returned, or `void`ed with a reason.
      '@typescript-eslint/no-floating-promises': ['error', { checkThenables: true }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // A `let` declared before the closure that reads it and assigned later is deliberate.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Unused names are an error, except deliberate placeholders (`_x`) and the rest sibling that drops a property.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Off: handler tables (Hono routes, XState actions, driver interfaces) are async by contract even when one
      // implementation has nothing to await.
      '@typescript-eslint/require-await': 'off',
      // Off: it calls XState's `types: {} as T` and other casts that carry a type into generic inference unnecessary;
      // removing them breaks the machines' types.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      // Off: objects here are closures made by factory functions, not classes, so passing `obj.method` is safe.
      '@typescript-eslint/unbound-method': 'off',
    },
  },

  // Tests: response bodies and fakes are `any` on purpose; the assertions on them are the check.
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },

  // The browser client: plain ES modules, browser globals, no type information.
  {
    files: ['api/web/client/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.browser, sourceType: 'module' },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },

  // Node scripts outside the TypeScript project (launcher, mutation runner, test fixtures, this file).
  {
    files: ['**/*.mjs', 'eslint.config.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node, sourceType: 'module' },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
);
