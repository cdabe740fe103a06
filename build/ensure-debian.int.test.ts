// build/ensure-debian.mjs, the first step of `npm test` and of .ci/run, run as a real child
// process with stand-ins for dpkg and apt-get on its PATH: the stand-in dpkg says which
// packages are installed, the stand-in apt-get records how it was called.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const isRoot = process.getuid?.() === 0;
const NOBODY = ['--reuid=65534', '--regid=65534', '--clear-groups'];
// As root, "not root" is user nobody (setpriv), who must be able to run this node.
const canBeNobody =
  spawnSync('/usr/bin/setpriv', [...NOBODY, process.execPath, '-e', '0']).status === 0;

/** The package names of build/debian-packages.txt, as the script reads them. */
function listed(): string[] {
  return readFileSync(join(ROOT, 'build', 'debian-packages.txt'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim().split(/\s+/)[0] ?? '')
    .filter((p) => p !== '');
}

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/**
 * A PATH folder holding a dpkg that knows only `installed` and a recording apt-get, beside a
 * copy of the script and its list (which nobody can read wherever the checkout is).
 */
function standIns(installed: readonly string[]): { bin: string; calls: string } {
  const bin = mkdtempSync(join(tmpdir(), 'ensure-debian-'));
  chmodSync(bin, 0o755);
  dirs.push(bin);
  for (const f of ['ensure-debian.mjs', 'debian-packages.txt'])
    copyFileSync(join(ROOT, 'build', f), join(bin, f));
  const calls = join(bin, 'apt-calls.log');
  writeFileSync(calls, '', { mode: 0o666 });
  chmodSync(calls, 0o666);
  const script = (name: string, body: string) =>
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  script(
    'dpkg',
    `[ "$1" = "-s" ] || exit 2\ncase " ${installed.join(' ')} " in *" $2 "*) echo "Status: install ok installed"; exit 0;; esac\necho "dpkg-query: package '$2' is not installed" >&2\nexit 1`,
  );
  script('apt-get', `echo "$*" >> "${calls}"`);
  return { bin, calls };
}

function run(bin: string, asNobody: boolean) {
  const env = { PATH: bin, HOME: tmpdir() };
  const script = join(bin, 'ensure-debian.mjs');
  const [cmd, args] =
    asNobody && isRoot
      ? ['/usr/bin/setpriv', [...NOBODY, process.execPath, script]]
      : [process.execPath, [script]];
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', cwd: bin, timeout: 20_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('build/ensure-debian.mjs (npm test and .ci/run run it first)', () => {
  it('says nothing and exits 0 when every listed package is installed', () => {
    const { bin, calls } = standIns(listed());
    const r = run(bin, false);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(readFileSync(calls, 'utf8')).toBe('');
  });

  it.skipIf(isRoot && !canBeNobody)(
    'stops at once when not root, naming the missing programs and the command that installs them',
    () => {
      const missing = ['slapd', 'opensmtpd'];
      const { bin, calls } = standIns(listed().filter((p) => !missing.includes(p)));
      const r = run(bin, true);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        'missing Debian packages: slapd (/usr/sbin/slapd), opensmtpd (/usr/sbin/smtpd)',
      );
      expect(r.stderr).toContain(
        'sudo apt-get update && sudo apt-get install -y --no-install-recommends slapd opensmtpd',
      );
      // Nothing was tried: no update, no install.
      expect(readFileSync(calls, 'utf8')).toBe('');
    },
  );

  it.skipIf(!isRoot)('installs only the missing packages when root, updating first', () => {
    const { bin, calls } = standIns(listed().filter((p) => p !== 'opensmtpd' && p !== 'nginx'));
    const r = run(bin, false);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('installing missing Debian packages: nginx opensmtpd');
    expect(readFileSync(calls, 'utf8').trim().split('\n')).toEqual([
      'update -qq',
      'install -y -qq --no-install-recommends nginx opensmtpd',
    ]);
  });

  it('names the packages when dpkg is not there at all (not a Debian machine)', () => {
    const { bin } = standIns([]);
    rmSync(join(bin, 'dpkg'));
    const r = run(bin, false);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/dpkg is not on PATH/);
    expect(r.stderr).toContain('opensmtpd');
  });
});
