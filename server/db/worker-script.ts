// Where a worker thread's script is: the bundle beside the starting module in dist/, or in
// development (tests, tsx) the TypeScript source, loaded through tsx's loader registered
// inside the worker.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface WorkerScript {
  readonly source: URL | string;
  readonly eval: boolean;
}

/**
 * `from`: the starting module's import.meta.url; `name`: the worker's file name without its
 * extension, beside the starting module's source (`./<name>.ts`) and bundled as
 * `<name>.mjs` beside the bundle. Null when neither exists.
 */
export function workerScript(from: string, name: string): WorkerScript | null {
  const bundled = new URL(`./${name}.mjs`, from);
  if (!from.endsWith('.ts') && existsSync(fileURLToPath(bundled)))
    return { source: bundled, eval: false };
  const source = new URL(`./${name}.ts`, from);
  if (!from.endsWith('.ts') || !existsSync(fileURLToPath(source))) return null;
  return {
    source: `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`,
    eval: true,
  };
}
