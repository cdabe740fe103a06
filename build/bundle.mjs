// Bundles the server, the svc-core CLI and the Electron main process with esbuild, and the
// console (renderer/) with Vite into dist/console, which the server serves at `/`.
// Packages stay external (node_modules ships beside dist/), native modules above all.
import { build } from 'esbuild';
import { build as buildConsole } from 'vite';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';

const common = {
  bundle: true,
  // A release bundle (SVC_RELEASE=1) leaves the development licence authority out entirely.
  define: { __SVC_RELEASE__: process.env.SVC_RELEASE === '1' ? 'true' : 'false' },
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
};

rmSync('dist', { recursive: true, force: true });
mkdirSync('dist', { recursive: true });
await Promise.all([
  build({
    ...common,
    entryPoints: {
      server: 'server/main.ts',
      'svc-core': 'server/cli/svc-core.ts',
      'verify-worker': 'server/ledger/verify-worker.ts',
      'checkpoint-worker': 'server/db/checkpoint-worker.ts',
      // The episode list's read workers (server/compose/app.ts starts them).
      'list-worker': 'server/compose/list-worker.ts',
      // The local model's child process (models/local/runtime.ts forks it).
      'models-worker': 'models/local/worker.ts',
    },
    outdir: 'dist',
    format: 'esm',
    outExtension: { '.js': '.mjs' },
    banner: { js: '#!/usr/bin/env node' },
  }),
  // import.meta.url does not exist in CommonJS: give the Electron bundle its own.
  build({
    ...common,
    entryPoints: { main: 'main/main.ts' },
    outdir: 'dist/main',
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    external: ['electron'],
    define: { ...common.define, 'import.meta.url': '__importMetaUrl' },
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  }),
]);
// SQL migrations are read at run time beside the bundle (server/db/migrate.ts).
cpSync('server/db/migrations', 'dist/migrations', { recursive: true });
// The built-in signed check packs, loaded beside the bundle (server/packs/loader.ts).
if (existsSync('build/packs/signed'))
  cpSync('build/packs/signed', 'dist/packs', { recursive: true });
// The bundled revocation list, read beside each entry (server/licence/licence-files.ts).
cpSync('build/revocations.json', 'dist/revocations.json');
cpSync('build/revocations.json', 'dist/main/revocations.json');
// The workers sit beside each entry that starts them (dist/ and dist/main/).
cpSync('dist/verify-worker.mjs', 'dist/main/verify-worker.mjs');
cpSync('dist/checkpoint-worker.mjs', 'dist/main/checkpoint-worker.mjs');
cpSync('dist/list-worker.mjs', 'dist/main/list-worker.mjs');
cpSync('dist/models-worker.mjs', 'dist/main/models-worker.mjs');
// The console last: Vite empties only its own folder.
await buildConsole({ configFile: 'renderer/vite.config.ts', logLevel: 'warn' });
