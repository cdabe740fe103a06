// Type-checks each runtime folder with its own tsconfig (its own lib and types), the
// compile-time form of the folder rules: no DOM in server/, no Node in renderer/.
// Two at a time (the machines have two cores); each project's output is printed whole, so
// the errors of two projects never interleave.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import process from 'node:process';

const projects = ['.', 'models', 'server', 'main', 'e2e', 'bench', 'renderer'].filter(
  (p) =>
    existsSync(`${p}/tsconfig.json`) &&
    readdirSync(p, { recursive: true }).some((f) => /\.tsx?$/.test(String(f))),
);
const parallel = Math.max(1, Number(process.env.TYPECHECK_PARALLEL ?? 2));

/** Runs tsc on one project; resolves to whether it passed. */
function check(project) {
  return new Promise((resolve) => {
    const tsc = spawn('npx', ['tsc', '-p', `${project}/tsconfig.json`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    tsc.stdout.on('data', (b) => out.push(b));
    tsc.stderr.on('data', (b) => out.push(b));
    tsc.on('close', (code) => {
      if (out.length > 0) process.stdout.write(Buffer.concat(out));
      if (code !== 0) process.stdout.write(`typecheck: ${project}/tsconfig.json failed\n`);
      resolve(code === 0);
    });
  });
}

const queue = [...projects];
let failed = false;
await Promise.all(
  Array.from({ length: parallel }, async () => {
    for (let p = queue.shift(); p !== undefined; p = queue.shift()) {
      if (!(await check(p))) failed = true;
    }
  }),
);
process.exit(failed ? 1 : 0);
