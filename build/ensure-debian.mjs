// The Debian packages the tests need (build/debian-packages.txt): the first step of `npm test`
// and of .ci/run, so that a fresh clone's `npm test` either gets them or says at once what is
// missing. As root it installs the missing ones (apt-get update only then); otherwise it stops
// with exit 1 naming the packages, their programs and the command that installs them.
// dpkg and apt-get are found on PATH (a test stands them in).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const LIST = join(import.meta.dirname, 'debian-packages.txt');

/** `package program # why` lines: the package and the program the tests use from it. */
const packages = readFileSync(LIST, 'utf8')
  .split('\n')
  .map((line) => line.replace(/#.*/, '').trim().split(/\s+/))
  .filter(([name]) => name !== undefined && name !== '')
  .map(([name, program]) => ({ name, program: program ?? name }));

const installCommand = (names) =>
  `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${names.join(' ')}`;

function stop(lines) {
  process.stderr.write(`${lines.join('\n')}\n`);
  process.exit(1);
}

const dpkg = spawnSync('dpkg', ['--version'], { stdio: 'ignore' });
if (dpkg.error !== undefined) {
  stop([
    'npm test needs Debian packages, and dpkg is not on PATH (is this a Debian machine?):',
    `  ${packages.map((p) => p.name).join(' ')}`,
    `install them with: ${installCommand(packages.map((p) => p.name))}`,
  ]);
}

const missing = packages.filter(
  (p) => spawnSync('dpkg', ['-s', p.name], { stdio: 'ignore' }).status !== 0,
);
if (missing.length === 0) process.exit(0);
const names = missing.map((p) => p.name);

if (process.getuid?.() !== 0) {
  stop([
    `npm test needs missing Debian packages: ${missing.map((p) => `${p.name} (${p.program})`).join(', ')}`,
    `install them with: ${installCommand(names)}`,
    '(run as root, npm test installs them itself)',
  ]);
}

console.log(`installing missing Debian packages: ${names.join(' ')}`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [
  ['update', '-qq'],
  ['install', '-y', '-qq', '--no-install-recommends', ...names],
]) {
  const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (r.status !== 0)
    stop([`apt-get ${args[0]} failed (${r.error?.message ?? `exit ${String(r.status)}`})`]);
}
