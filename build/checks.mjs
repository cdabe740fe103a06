// The static checks of `npm test`: the type check, ESLint and Prettier. Each is a
// single-threaded process, so one after another they left a core idle for minutes; here two
// run at a time (the machines have two cores): ESLint beside the type check's projects one
// at a time, then Prettier. Each check's output is printed whole when it ends, so two
// checks never interleave; every check runs even when one fails, and the exit is 1 if any did.
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import process from 'node:process';

const CHECKS = [
  // Longest first (about 85 s, 40 s and 30 s of CPU on the 2-core machine): ESLint on one
  // core, the type check then Prettier on the other. (ESLint's --concurrency does not help:
  // each of its threads builds the whole TypeScript program for the typed rules.)
  { name: 'eslint', command: 'npx', args: ['eslint', '.'] },
  { name: 'typecheck', command: 'node', args: ['build/typecheck.mjs'], env: { TYPECHECK_PARALLEL: '1' } },
  { name: 'prettier', command: 'npx', args: ['prettier', '--check', '.'] },
]; // prettier-ignore
const parallel = Math.max(1, Number(process.env.CHECKS_PARALLEL ?? 2));

/** Runs one check; resolves to whether it passed. */
function run({ name, command, args, env }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    const out = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => out.push(b));
    child.on('error', (err) => out.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (out.length > 0) process.stdout.write(Buffer.concat(out));
      process.stdout.write(`${name}: ${code === 0 ? 'ok' : 'failed'} (${seconds} s)\n`);
      resolve(code === 0);
    });
  });
}

const queue = [...CHECKS];
let failed = false;
await Promise.all(
  Array.from({ length: parallel }, async () => {
    for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
      if (!(await run(c))) failed = true;
    }
  }),
);
process.exit(failed ? 1 : 0);
