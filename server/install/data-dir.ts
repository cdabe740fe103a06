// The data folder: created owner-only, with a pid lock so that two servers (or a server and
// `svc-core rebuild`) never write the same database.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

export function ensureDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) !== 0) chmodSync(dir, 0o700);
  mkdirSync(join(dir, 'secrets'), { recursive: true, mode: 0o700 });
}

export const databaseFile = (dir: string): string => join(dir, 'svc.db');
const pidFile = (dir: string): string => join(dir, 'svc.pid');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid holding the data folder, if it is a live process other than this one. */
export function lockHolder(dir: string): number | null {
  if (!existsSync(pidFile(dir))) return null;
  const pid = Number(readFileSync(pidFile(dir), 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null;
}

/** Take the data folder for this process; refuses while another live process holds it. */
export function lockDataDir(dir: string): () => void {
  const holder = lockHolder(dir);
  if (holder !== null) {
    throw new Error(`the data folder ${dir} is in use by process ${String(holder)}; stop it first`);
  }
  writeFileSync(pidFile(dir), `${String(process.pid)}\n`, { mode: 0o600 });
  return () => {
    try {
      if (readFileSync(pidFile(dir), 'utf8').trim() === String(process.pid)) rmSync(pidFile(dir));
    } catch {
      // already gone
    }
  };
}
