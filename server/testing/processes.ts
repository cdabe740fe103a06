// Child processes for integration tests and benchmarks: the bundled server and CLI, run
// with a clean SVC_* environment, and free loopback ports for them.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'svc-core.mjs');
export const SERVER = join(ROOT, 'dist', 'server.mjs');

/** Fail early and clearly when the bundle is missing. */
export function requireBundle(): void {
  for (const file of [CLI, SERVER]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: run node build/bundle.mjs first`);
  }
}

/** This process's environment without any SVC_* variable, plus `env`. */
export function childEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('SVC_') && v !== undefined) out[k] = v;
  }
  return Object.assign(out, env);
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `svc-core ARGS` from the bundle with the given SVC_* environment. */
export function runCli(env: Record<string, string>, args: readonly string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: childEnv(env), cwd: ROOT, timeout: 30_000 },
      (err, stdout, stderr) => {
        resolve({
          code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1,
          stdout,
          stderr,
        });
      },
    );
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      srv.close(() => {
        resolve(port);
      });
    });
  });
}
