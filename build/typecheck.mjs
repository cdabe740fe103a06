// Type-checks each runtime with its own options (its own lib and types), the compile-time
// form of the folder rules: no DOM on the Node side, no Node in renderer/. The Node side is
// one program (tsconfig.node.json: server, main, e2e, bench, build), since most of it imports
// the server; models/ keeps its own (its rootDir keeps it free of the rest). A TypeScript
// file git tracks that no project includes fails the check, naming it.
// Two at a time (the machines have two cores); each project's output is printed whole, so
// the errors of two projects never interleave.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { dirname, join } from 'node:path';
import process from 'node:process';

const projects = ['tsconfig.node.json', 'renderer/tsconfig.json', 'models/tsconfig.json'];

/** A tsconfig `include` pattern (`*` and `**` only), relative to its folder, as a regex. */
function patternOf(folder, include) {
  const path = join(folder, include).replaceAll('\\', '/');
  const source = path
    .split('/')
    .map((part) =>
      part === '**'
        ? '(?:[^/]+/)*'
        : `${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}/`,
    )
    .join('')
    .replace(/\/$/, '');
  return new RegExp(`^${source}$`);
}

/**
 * The TypeScript files git tracks that no project includes (a new top-level folder, say):
 * they would never be type-checked. Where git is not there, nothing is said.
 */
function uncovered() {
  let tracked;
  try {
    tracked = execFileSync('git', ['ls-files', '*.ts', '*.tsx', '*.mts', '*.cts'], {
      encoding: 'utf8',
    });
  } catch {
    return [];
  }
  const patterns = projects.flatMap((project) => {
    // The tsconfig files hold // comments (JSONC); none holds a string with `//` in it.
    const config = JSON.parse(readFileSync(project, 'utf8').replace(/^\s*\/\/.*$/gm, ''));
    return (config.include ?? []).map((include) => patternOf(dirname(project), include));
  });
  return tracked.split('\n').filter((file) => file !== '' && !patterns.some((p) => p.test(file)));
}

const missed = uncovered();
if (missed.length > 0) {
  process.stdout.write(
    `typecheck: no project includes ${missed.join(', ')}: add the folder to tsconfig.node.json\n`,
  );
  process.exit(1);
}
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
