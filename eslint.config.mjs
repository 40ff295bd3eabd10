// Lint: typescript-eslint with type information, Nx module boundaries on real tags, zero warnings.
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import regexp from 'eslint-plugin-regexp';
import tseslint from 'typescript-eslint';

// Production code: an app never imports another app; libs only reach lower layers.
const depConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:infra'] },
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:infra'] },
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:infra', 'type:testing'] },
  // The SDK is for API users: it stands alone (its types come from the OpenAPI document, not the contracts).
  { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: [] },
  // Each bounded context (schema) is reached only by its own app.
  { sourceTag: 'scope:gateway', notDependOnLibsWithTags: ['scope:crm', 'scope:auth', 'scope:webhooks'] },
  { sourceTag: 'scope:crm', notDependOnLibsWithTags: ['scope:gateway', 'scope:auth', 'scope:webhooks'] },
  { sourceTag: 'scope:auth', notDependOnLibsWithTags: ['scope:gateway', 'scope:crm', 'scope:webhooks'] },
  { sourceTag: 'scope:webhooks', notDependOnLibsWithTags: ['scope:gateway', 'scope:crm', 'scope:auth'] },
];
// Test files may also use the test harness (@crm/testing); never another app.
const withTesting = (tags) => [...tags, 'type:testing'];
const testDepConstraints = depConstraints.map((c) =>
  c.onlyDependOnLibsWithTags && c.sourceTag !== 'type:testing'
    ? { ...c, onlyDependOnLibsWithTags: withTesting(c.onlyDependOnLibsWithTags) }
    : c,
);
const boundaries = (constraints) => ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints: constraints }];
const TEST_FILES = [
  '**/*.spec.ts',
  '**/*.spec-helpers.ts',
  '**/*.int-spec.ts',
  '**/*.medium-spec.ts',
  '**/*.e2e-spec.ts',
  'libs/testing/**/*.ts',
  'test/**/*.ts',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.nx/**', '**/*.js', '**/*.cjs', '**/*.mjs', 'test-results/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': boundaries(depConstraints),
    },
  },
  {
    // No regular expression whose running time can grow faster than its input (docs/decisions.md
    // "Request input bounds, routing and metrics"): a crafted string must not stall the event loop.
    files: ['**/*.ts'],
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      'regexp/no-misleading-capturing-group': 'error',
    },
  },
  {
    // No import cycles in production code: a module folder depends one way (docs/crm-core-architecture.md).
    files: ['apps/*/src/**/*.ts', 'libs/*/src/**/*.ts'],
    ignores: TEST_FILES,
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.base.json' })],
      // Without these, import-x skips .ts dependencies and finds no cycle at all.
      'import-x/extensions': ['.ts'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    files: TEST_FILES,
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@nx/enforce-module-boundaries': boundaries(testDepConstraints) },
  },
  prettier,
);
