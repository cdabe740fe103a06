// Units on hosts without systemd: each lab service (nginx, app, postgresql) is started and
// stopped by small shell scripts with a pidfile. The lab uses the same scripts as the gate
// (unit.<name>.start=/stop=), so a restart through the gate does exactly what the lab does.
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { alive, type UnitFiles } from './layout.js';

const run = promisify(execFile);

export function writeUnit(
  binDir: string,
  name: string,
  files: { pidfile: string; log: string },
  scripts: { start: string; stop: string; reload?: string },
): UnitFiles {
  mkdirSync(binDir, { recursive: true });
  const write = (verb: string, body: string) => {
    const path = join(binDir, `${name}-${verb}`);
    writeFileSync(path, `#!/bin/sh\n# ${name} ${verb} (written by the lab)\nset -e\n${body}\n`);
    chmodSync(path, 0o755);
    return path;
  };
  return {
    start: write('start', scripts.start),
    stop: write('stop', scripts.stop),
    ...(scripts.reload !== undefined ? { reload: write('reload', scripts.reload) } : {}),
    ...files,
  };
}

/** The unit's pid when its process is alive. */
export function unitPid(unit: UnitFiles): number | null {
  if (!existsSync(unit.pidfile)) return null;
  const pid = Number(readFileSync(unit.pidfile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 1 && alive(pid) ? pid : null;
}

export async function runUnit(unit: UnitFiles, verb: 'start' | 'stop' | 'reload'): Promise<void> {
  const script = unit[verb];
  if (script === undefined) throw new Error(`no ${verb} script`);
  try {
    await run(script, [], { timeout: 60_000 });
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${script} failed: ${e.stderr?.trim() || e.message}`);
  }
}

/** Stops a unit and waits until its process is gone (SIGKILL after `ms`). */
export async function stopUnit(unit: UnitFiles, ms = 10_000): Promise<void> {
  const pid = unitPid(unit);
  if (pid === null) return;
  await runUnit(unit, 'stop').catch(() => undefined);
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      break;
    }
    await sleep(100);
  }
}

/** Starts a unit unless it runs already. */
export async function startUnit(unit: UnitFiles): Promise<void> {
  if (unitPid(unit) !== null) return;
  await runUnit(unit, 'start');
}
