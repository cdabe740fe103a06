// Type-checks each runtime with its own options (its own lib and types), the compile-time
// form of the folder rules: no DOM on the Node side, no Node in renderer/. The Node side is
// one program (tsconfig.node.json: server, main, e2e, bench, build), since most of it imports
// the server; models/ keeps its own (its rootDir keeps it free of the rest).
// Two at a time (the machines have two cores); each project's output is printed whole, so
// the errors of two projects never interleave.
import { spawn } from 'node:child_process';
import { Buffer } from 'node:buffer';
import process from 'node:process';

const projects = ['tsconfig.node.json', 'renderer/tsconfig.json', 'models/tsconfig.json'];
const parallel = Math.max(1, Number(process.env.TYPECHECK_PARALLEL ?? 2));

/** Runs tsc on one project; resolves to whether it passed. */
function check(project) {
  return new Promise((resolve) => {
    const tsc = spawn('npx', ['tsc', '-p', project], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    tsc.stdout.on('data', (b) => out.push(b));
    tsc.stderr.on('data', (b) => out.push(b));
    tsc.on('close', (code) => {
      if (out.length > 0) process.stdout.write(Buffer.concat(out));
      if (code !== 0) process.stdout.write(`typecheck: ${project} failed\n`);
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
