// ESLint owns correctness and architecture; Prettier owns layout (eslint-config-prettier).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';
import boundaries from './build/eslint/boundaries.js';
import ownedTables from './build/eslint/owned-tables.js';
import rendererWalls from './build/eslint/renderer-walls.js';

const serverImports = [
  {
    group: ['electron', 'react', 'react-dom', '@tanstack/*'],
    message: 'server/ is Node-only and runs without Electron',
  },
  {
    group: ['**/renderer/**', '**/main/**'],
    message: 'server/ must not import renderer/ or main/',
  },
  { group: ['node-llama-cpp'], message: 'Use the ModelRuntime from models/ (injected)' },
  {
    // The top-level models/ (only ../ before it), not a domain's own models/ sub-folder.
    regex: '^(\\.\\./)+models/(?!index\\.js$)',
    message: 'Import models/ only through models/index',
  },
];
// Tests may also use models/' own test support (fakes, a tiny model), as they use server/testing/.
const serverTestImports = serverImports.map((p) =>
  p.regex === undefined
    ? p
    : { ...p, regex: '^(\\.\\./)+models/(?!index\\.js$|testing(\\.js$|/))' },
);
const noFastify = {
  group: ['fastify', '@fastify/*', 'fastify-plugin'],
  message: 'Domain code never imports Fastify; throw ServiceError instead',
};
const noSqlite = { group: ['better-sqlite3'], message: 'SQL lives in *.store.ts and server/db/' };

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'data/**', 'out/**', 'coverage/**', 'renderer/dist/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', 'build/*.mjs', 'build/eslint/*.js', 'eslint.config.js'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      // Sanitisers match control characters on purpose (syslog, checkpoints).
      'no-control-regex': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/ban-ts-comment': [
        'error',
        { 'ts-expect-error': 'allow-with-description' },
      ],
      '@typescript-eslint/require-await': 'off',
      'import-x/no-cycle': 'error',
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration through server/config.ts',
        },
      ],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: [
      'server/config.ts',
      'server/main.ts',
      'main/main.ts',
      'e2e/**',
      'bench/**',
      'build/**',
      'server/cli/**',
      '**/*.test.ts',
      'server/testing/**',
    ],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['server/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: serverImports }] },
  },
  // Each table has one owner (server/db/table-owners.json); server/db/ is the kernel.
  {
    files: ['server/**/*.ts'],
    plugins: { tables: ownedTables },
    rules: { 'tables/owned-tables': 'error' },
  },
  {
    files: ['server/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: serverTestImports }] },
  },
  {
    files: ['server/*/*.store.ts', 'server/shared/**'],
    ignores: ['server/testing/**', '**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...serverImports, noFastify] }] },
  },
  {
    files: ['server/*/*.routes.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...serverImports, noSqlite] }],
    },
  },
  {
    files: ['server/*/*.service.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [...serverImports, noFastify, noSqlite] }],
    },
  },
  {
    // server/'s walls (build/eslint/boundaries.js): a domain only through its index.ts,
    // layers never import a domain, production never imports server/testing/, no folder
    // cycle. One local plugin rather than no-restricted-imports, whose blocks replace each other.
    files: ['server/**/*.ts'],
    plugins: { boundaries },
    rules: {
      'boundaries/domain-index': 'error',
      'boundaries/layers': 'error',
      'boundaries/no-test-support': 'error',
      'boundaries/no-folder-cycle': 'error',
    },
  },
  {
    // The console's walls (build/eslint/renderer-walls.js): a feature only through its
    // index.ts, shared/ under everything, features never import the shell, and from server/
    // only types out of its wire files.
    files: ['renderer/src/**/*.{ts,tsx}'],
    plugins: { renderer: rendererWalls },
    rules: { 'renderer/walls': 'error' },
  },
  {
    files: ['models/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/**', '**/main/**', '**/renderer/**', 'electron'],
              message: 'models/ stands alone',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['main/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/server/*/**', '!**/server/index.js'],
              message: 'main/ uses server/ only through server/index.ts',
            },
            { group: ['**/renderer/**'], message: 'main/ never imports the renderer' },
          ],
        },
      ],
    },
  },
  prettier,
);
