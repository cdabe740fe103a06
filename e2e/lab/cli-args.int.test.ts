// The lab's command line: parsing (fast, in process) and the exit statuses of the real
// command (through tsx, as `npm run lab --` runs it). Named .int because vitest's unit
// project does not include e2e/.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from './cli-args.js';
import { FAULT_NAMES, FAULTS, UNKNOWN_SERVICE } from './faults.js';
import { ROOT } from './processes.js';

const run = promisify(execFile);

describe('lab command line', () => {
  it('starts the lab with no command, and takes the npm "--" separator', () => {
    expect(parseArgs([])).toEqual({ cmd: 'start' });
    expect(parseArgs(['--'])).toEqual({ cmd: 'start' });
    expect(parseArgs(['--', 'status'])).toEqual({ cmd: 'status' });
  });

  it('parses inject, heal, status and faults', () => {
    expect(parseArgs(['inject', 'disk-full'])).toEqual({ cmd: 'inject', fault: 'disk-full' });
    expect(parseArgs(['heal'])).toEqual({ cmd: 'heal' });
    expect(parseArgs(['heal', 'cpu-hog'])).toEqual({ cmd: 'heal', fault: 'cpu-hog' });
    expect(parseArgs(['faults'])).toEqual({ cmd: 'faults' });
    expect(parseArgs(['--help'])).toEqual({ cmd: 'help' });
  });

  it('refuses an unknown fault, naming every fault', () => {
    const err = (() => {
      try {
        parseArgs(['inject', 'disk-ful']);
      } catch (e) {
        return e as Error;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toContain('unknown fault "disk-ful"');
    for (const name of FAULT_NAMES) expect(err?.message).toContain(name);
  });

  it('refuses a missing fault, an unknown command and extra words', () => {
    expect(() => parseArgs(['inject'])).toThrow(/inject needs a fault: service-down, /);
    expect(() => parseArgs(['explode'])).toThrow(/unknown command "explode"/);
    expect(() => parseArgs(['status', 'now'])).toThrow(/unexpected "now"/);
    expect(() => parseArgs(['heal', 'app-down', 'db-down'])).toThrow(/unexpected "db-down"/);
  });

  it('has ground truth for every fault', () => {
    expect(FAULTS.map((f) => f.name)).toEqual([...FAULT_NAMES]);
    for (const f of FAULTS) {
      expect(f.alerts.length).toBeGreaterThan(0);
      expect(f.cause).not.toBe('');
      // One fault is an alert from a service no lab host runs, on purpose.
      if (f.name === 'unknown-service') expect(f.service).toBe(UNKNOWN_SERVICE);
      else expect(['nginx', 'app', 'postgresql']).toContain(f.service);
    }
  });

  it('exits 2 on a usage error, and 1 when no lab runs or its process is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lab-cli-'));
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', join(ROOT, 'e2e', 'lab', 'cli.ts'), ...args], {
        env: { ...process.env, SVC_LAB_DIR: join(dir, 'none') },
      }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
      );
    try {
      const unknown = await cli('inject', 'nope');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown fault "nope"; the faults are: service-down');
      const noLab = await cli('heal');
      expect(noLab.code).toBe(1);
      expect(noLab.stderr).toContain(`no lab in ${join(dir, 'none')}`);
      // A lab whose process is gone: refused rather than acting on what it left behind.
      mkdirSync(join(dir, 'none'));
      writeFileSync(join(dir, 'none', 'lab.json'), JSON.stringify({ dir, pid: 2 ** 22 + 7 }));
      const stale = await cli('inject', 'app-down');
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain('is not running');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
