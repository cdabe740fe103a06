// The app host's small data volume, which the disk-full fault fills. A real filesystem
// (tmpfs) where mounting is permitted, so df, the gate's disk check and the node exporter
// see a real full disk. Where it is not (an unprivileged container), a plain folder: the
// lab then publishes its usage against the same nominal size through the node exporter's
// textfile collector (lab_volume_*), and the fault writes only up to that size.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

export const VOLUME_BYTES = 16 * 1024 * 1024;

export function mountVolume(path: string): boolean {
  mkdirSync(path, { recursive: true });
  try {
    execFileSync(
      'mount',
      ['-t', 'tmpfs', '-o', `size=${String(VOLUME_BYTES)},mode=0755`, 'lab-volume', path],
      { stdio: 'pipe' },
    );
    return true;
  } catch {
    return false;
  }
}

/** Mount points at or under `dir` (deepest first), from /proc/mounts. */
export function mountsUnder(dir: string): string[] {
  let text = '';
  try {
    text = readFileSync('/proc/mounts', 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((l) => (l.split(' ')[1] ?? '').replace(/\\040/g, ' '))
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/** Unmounts whatever the lab mounted under `dir` (lazily: a dying process may hold a file). */
export function unmountUnder(dir: string): void {
  for (const m of mountsUnder(dir)) {
    try {
      execFileSync('umount', ['-l', m], { stdio: 'pipe' });
    } catch {
      // already gone
    }
  }
}

export function usedBytes(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    if (entry.isDirectory()) total += usedBytes(p);
    else if (entry.isFile()) total += statSync(p).size;
  }
  return total;
}

/** Fallback only: writes the volume's usage for the node exporter's textfile collector. */
export function writeVolumeMetrics(textfileDir: string, volume: string): void {
  const used = Math.min(usedBytes(volume), VOLUME_BYTES);
  const body = [
    "# HELP lab_volume_size_bytes The lab volume's nominal size (no mount: plain folder).",
    '# TYPE lab_volume_size_bytes gauge',
    `lab_volume_size_bytes{mountpoint="${volume}"} ${String(VOLUME_BYTES)}`,
    '# TYPE lab_volume_avail_bytes gauge',
    `lab_volume_avail_bytes{mountpoint="${volume}"} ${String(VOLUME_BYTES - used)}`,
    '',
  ].join('\n');
  const tmp = join(textfileDir, 'lab_volume.prom.tmp');
  writeFileSync(tmp, body);
  renameSync(tmp, join(textfileDir, 'lab_volume.prom'));
}
