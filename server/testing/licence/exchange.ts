// Test-only: installs for the ask/look/vouch exchange (an Ed25519 install key and a
// fingerprint each) and a licence that lists some of them, signed by the development issuer.
import { generateKeyPairSync, randomInt, type KeyObject } from 'node:crypto';
import type { LicenceInstall, LicencePayload } from '../../licence/document/licence-doc.js';
import { installPubOf } from '../../licence/installs/install-pub.js';
import { licencePayload, type TestIssuer } from './issuer.js';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export interface TestInstall {
  readonly key: KeyObject;
  readonly pub: string;
  readonly fingerprint: string;
}

/** A random fingerprint as server/install/fingerprint.ts writes one (six groups of four). */
export function randomFingerprint(): string {
  const group = () =>
    Array.from({ length: 4 }, () => BASE32.charAt(randomInt(BASE32.length))).join('');
  return Array.from({ length: 6 }, group).join('-');
}

export function makeInstall(): TestInstall {
  const { privateKey } = generateKeyPairSync('ed25519');
  return { key: privateKey, pub: installPubOf(privateKey), fingerprint: randomFingerprint() };
}

export function listed(
  install: TestInstall,
  at: string,
  role: LicenceInstall['role'] = 'production',
): LicenceInstall {
  return {
    fingerprint: install.fingerprint,
    install_pub: install.pub,
    label: 'listed',
    role,
    added_at: at,
    via: 'authority',
  };
}

/** A licence listing `installs` (and, to fill seats, `others` more), signed by `issuer`. */
export function licenceListing(
  issuer: TestIssuer,
  now: string,
  installs: readonly TestInstall[],
  over: Partial<LicencePayload> = {},
  others = 0,
) {
  const payload = licencePayload(now, {
    installs: [
      ...installs.map((i) => listed(i, now)),
      ...Array.from({ length: others }, () => listed(makeInstall(), now, 'standby')),
    ],
    ...over,
  });
  return { payload, envelope: issuer.licence(payload) };
}
