// The install fingerprint: cluster uid, else machine id file, else hardware id file; refused
// placeholders; stable, app-specific output in groups of four.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  computeFingerprint,
  fingerprintOf,
  type Fingerprint,
  type IdentitySources,
} from './fingerprint.js';

const MACHINE_ID = '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c';
const OTHER_MACHINE_ID = '0123456789abcdef0123456789abcdef';
const HARDWARE_ID = '4c4c4544-0042-3510-8052-b4c04f4b4e32';
const CLUSTER_UID = '7d1b3f0e-2c4a-4e8b-9a6d-5f1c2b3a4d5e';
const SHAPE = /^[A-Z2-7]{4}(-[A-Z2-7]{4}){5}$/;

let dir: string;
let n = 0;
/** A file holding `content`, fresh for each call. */
function file(content: string): string {
  const path = join(dir, `id-${String(++n)}`);
  writeFileSync(path, content);
  return path;
}
const sources = (s: Partial<IdentitySources>): IdentitySources => ({
  clusterUid: null,
  machineIdFile: join(dir, 'absent'),
  hardwareIdFile: null,
  ...s,
});
const ok = (f: Fingerprint) => {
  if (!f.ok) throw new Error(`expected a fingerprint, got: ${f.problem}`);
  return f;
};
const problem = (f: Fingerprint): string => {
  if (f.ok) throw new Error(`expected a refusal, got ${f.fingerprint} from ${f.source}`);
  return f.problem;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-fingerprint-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('sources, in order', () => {
  it('the cluster uid wins over the machine id', () => {
    const f = ok(
      computeFingerprint(
        sources({ clusterUid: CLUSTER_UID, machineIdFile: file(`${MACHINE_ID}\n`) }),
      ),
    );
    expect(f.source).toBe('cluster');
    expect(f.fingerprint).toBe(fingerprintOf(CLUSTER_UID, 'cluster'));
  });

  it('the machine id file wins over the hardware id file', () => {
    const f = ok(
      computeFingerprint(
        sources({
          machineIdFile: file(`${MACHINE_ID}\n`),
          hardwareIdFile: file(`${HARDWARE_ID}\n`),
        }),
      ),
    );
    expect(f.source).toBe('machine-id');
    expect(f.fingerprint).toBe(fingerprintOf(MACHINE_ID, 'machine-id'));
  });

  it('the hardware id is used when the machine id file is missing or refused', () => {
    const hw = file(`${HARDWARE_ID}\n`);
    for (const machineIdFile of [join(dir, 'absent'), file('0'.repeat(32))]) {
      const f = ok(computeFingerprint(sources({ machineIdFile, hardwareIdFile: hw })));
      expect(f.source).toBe('hardware-id');
      expect(f.fingerprint).toBe(fingerprintOf(HARDWARE_ID, 'hardware-id'));
    }
  });

  it('a refused cluster uid falls through to the machine id', () => {
    const f = ok(
      computeFingerprint(
        sources({
          clusterUid: '00000000-0000-0000-0000-000000000000',
          machineIdFile: file(MACHINE_ID),
        }),
      ),
    );
    expect(f.source).toBe('machine-id');
  });

  it('the same value from different sources gives different fingerprints', () => {
    expect(fingerprintOf(MACHINE_ID, 'machine-id')).not.toBe(
      fingerprintOf(MACHINE_ID, 'hardware-id'),
    );
    expect(fingerprintOf(MACHINE_ID, 'machine-id')).not.toBe(fingerprintOf(MACHINE_ID, 'cluster'));
  });
});

describe('refused machine ids', () => {
  it.each([
    ['all zeros', `${'0'.repeat(32)}\n`],
    ['empty', ''],
    ['only a newline', '\n'],
    ['uninitialized (systemd before first boot)', 'uninitialized\n'],
    ['not hexadecimal', 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n'],
    ['upper-case hexadecimal', `${MACHINE_ID.toUpperCase()}\n`],
    ['too short', '5f0c2a6b\n'],
    ['a UUID with dashes', '5f0c2a6b-9d8e-4f1a-8b7c-6d5e4f3a2b1c\n'],
    ['all f', `${'f'.repeat(32)}\n`],
  ])('%s: refused, naming the file and the remedy', (_what, content) => {
    const machineIdFile = file(content);
    const p = problem(computeFingerprint(sources({ machineIdFile })));
    expect(p).toContain(`the machine id in ${machineIdFile} is refused`);
    expect(p).toContain('systemd-machine-id-setup');
    expect(p).toContain('SVC_MACHINE_ID_FILE');
  });

  it('a missing machine id file is named with why', () => {
    const machineIdFile = join(dir, 'no-such-machine-id');
    const p = problem(computeFingerprint(sources({ machineIdFile })));
    expect(p).toContain(`${machineIdFile} cannot be read (ENOENT)`);
    expect(p).toContain('systemd-machine-id-setup');
  });

  it('every source that was tried is named', () => {
    const machineIdFile = file('');
    const hardwareIdFile = file('To be filled by O.E.M.\n');
    const p = problem(
      computeFingerprint(sources({ clusterUid: 'none', machineIdFile, hardwareIdFile })),
    );
    expect(p).toMatch(/^no usable install identity: /);
    expect(p).toContain('SVC_CLUSTER_UID is refused');
    expect(p).toContain(`the machine id in ${machineIdFile} is refused`);
    expect(p).toContain(
      `the hardware id in ${hardwareIdFile} is refused: it is empty or a known placeholder`,
    );
  });

  it.each(['', '  ', 'unknown', '0', 'aaaaaaaaaaaa', 'short'])(
    'a cluster uid of %j is refused',
    (uid) => {
      const p = problem(computeFingerprint(sources({ clusterUid: uid })));
      expect(p).toContain('SVC_CLUSTER_UID is refused');
    },
  );

  it.each([
    '00000000-0000-0000-0000-000000000000',
    'Default string',
    'System Serial Number',
    '03000200-0400-0500-0006-000700080009',
  ])('a hardware id of %j is refused', (hw) => {
    const hardwareIdFile = file(`${hw}\n`);
    const p = problem(computeFingerprint(sources({ hardwareIdFile })));
    expect(p).toContain(`the hardware id in ${hardwareIdFile} is refused`);
  });
});

describe('output', () => {
  it('is stable: same input, same fingerprint; surrounding whitespace does not count', () => {
    const a = ok(computeFingerprint(sources({ machineIdFile: file(`${MACHINE_ID}\n`) })));
    const b = ok(computeFingerprint(sources({ machineIdFile: file(`  ${MACHINE_ID}  \n\n`) })));
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(fingerprintOf(MACHINE_ID, 'machine-id')).toBe(a.fingerprint);
    const c1 = ok(computeFingerprint(sources({ clusterUid: CLUSTER_UID })));
    const c2 = ok(computeFingerprint(sources({ clusterUid: ` ${CLUSTER_UID} ` })));
    expect(c2.fingerprint).toBe(c1.fingerprint);
  });

  it('a known value gives a known fingerprint (it never changes between versions)', () => {
    // Pinned: changing the derivation would make every install a new one.
    expect(fingerprintOf(MACHINE_ID, 'machine-id')).toBe('IMGI-A2MZ-7VF6-DN4X-OUDS-U3II');
  });

  it('another host, another fingerprint', () => {
    expect(fingerprintOf(OTHER_MACHINE_ID, 'machine-id')).not.toBe(
      fingerprintOf(MACHINE_ID, 'machine-id'),
    );
  });

  it('is XXXX-XXXX-XXXX-XXXX-XXXX-XXXX in base32, never the raw id', () => {
    for (const [value, source] of [
      [MACHINE_ID, 'machine-id'],
      [OTHER_MACHINE_ID, 'machine-id'],
      [HARDWARE_ID, 'hardware-id'],
      [CLUSTER_UID, 'cluster'],
    ] as const) {
      const f = fingerprintOf(value, source);
      expect(f).toMatch(SHAPE);
      expect(f.replace(/-/g, '').toLowerCase()).not.toContain(value.slice(0, 8).toLowerCase());
    }
  });
});
