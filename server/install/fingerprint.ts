// The install fingerprint: an app-specific HMAC of the cluster uid, else the machine id
// file, else the hardware id file (systemd's advice for machine ids: never expose the raw
// id). It follows the host; the install key follows the data folder.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { base32 } from '../ledger/index.js';

const APP_ID = 'a3f1c2d4e5b60718293a4b5c6d7e8f90'; // fixed per product, never changes

/** Values that images ship baked in, or that firmware fills with placeholders. */
const PLACEHOLDERS = new Set([
  '',
  'uninitialized',
  'none',
  'null',
  'unknown',
  '0',
  'default string',
  'not specified',
  'to be filled by o.e.m.',
  'system serial number',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '03000200-0400-0500-0006-000700080009',
]);

export interface IdentitySources {
  readonly clusterUid: string | null;
  readonly machineIdFile: string;
  readonly hardwareIdFile: string | null;
}

export type Fingerprint =
  | {
      readonly ok: true;
      readonly fingerprint: string;
      readonly source: 'cluster' | 'machine-id' | 'hardware-id';
    }
  | { readonly ok: false; readonly problem: string };

function refused(value: string): string | null {
  const v = value.trim().toLowerCase();
  if (PLACEHOLDERS.has(v)) return 'it is empty or a known placeholder';
  if (/^(.)\1*$/.test(v.replace(/-/g, ''))) return 'it repeats one character';
  if (v.length < 8) return 'it is shorter than 8 characters';
  return null;
}

function readId(file: string): { value: string } | { problem: string } {
  try {
    return { value: readFileSync(file, 'utf8').trim() };
  } catch (err) {
    return {
      problem: `${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
}

export function fingerprintOf(value: string, source: string): string {
  const mac = createHmac('sha256', value).update(`${APP_ID}:${source}`).digest();
  return base32(mac.subarray(0, 15)).match(/.{4}/g)?.join('-') ?? '';
}

export function computeFingerprint(sources: IdentitySources): Fingerprint {
  const problems: string[] = [];
  if (sources.clusterUid !== null) {
    const why = refused(sources.clusterUid);
    if (why === null)
      return {
        ok: true,
        fingerprint: fingerprintOf(sources.clusterUid.trim(), 'cluster'),
        source: 'cluster',
      };
    problems.push(`SVC_CLUSTER_UID is refused: ${why}`);
  }
  const machine = readId(sources.machineIdFile);
  if ('value' in machine) {
    const why = /^[0-9a-f]{32}$/.test(machine.value)
      ? refused(machine.value)
      : 'it is not 32 lowercase hexadecimal digits';
    if (why === null)
      return {
        ok: true,
        fingerprint: fingerprintOf(machine.value, 'machine-id'),
        source: 'machine-id',
      };
    problems.push(`the machine id in ${sources.machineIdFile} is refused: ${why}`);
  } else {
    problems.push(machine.problem);
  }
  if (sources.hardwareIdFile !== null) {
    const hw = readId(sources.hardwareIdFile);
    if ('value' in hw) {
      const why = refused(hw.value);
      if (why === null)
        return {
          ok: true,
          fingerprint: fingerprintOf(hw.value, 'hardware-id'),
          source: 'hardware-id',
        };
      problems.push(`the hardware id in ${sources.hardwareIdFile} is refused: ${why}`);
    } else {
      problems.push(hw.problem);
    }
  }
  return {
    ok: false,
    problem: `no usable install identity: ${problems.join('; ')}. Run systemd-machine-id-setup, or set SVC_MACHINE_ID_FILE, SVC_HARDWARE_ID_FILE or SVC_CLUSTER_UID`,
  };
}
