// The roots this build trusts. A release bundle is built with __SVC_RELEASE__ defined true
// (SVC_RELEASE=1 node build/bundle.mjs), which leaves the development roots out of the bundle
// altogether; nothing at run time (no file, no variable) can add a root (licence.md §3.2).
import { createPublicKey } from 'node:crypto';
import type { TrustedRoot } from '../document/trust.js';
import type { RootRecord } from './root-record.js';
import { DEVELOPMENT_ROOTS, RELEASE_ROOTS } from './roots.js';

declare const __SVC_RELEASE__: boolean | undefined;

/** Whether this is a release build (a build-time constant, never an environment variable). */
export const RELEASE_BUILD: boolean = typeof __SVC_RELEASE__ !== 'undefined' && __SVC_RELEASE__;

// The condition is the define itself, not RELEASE_BUILD: esbuild folds a literal condition
// and then drops the development roots it no longer references (trusted-roots.test.ts).
const records: readonly RootRecord[] =
  typeof __SVC_RELEASE__ !== 'undefined' && __SVC_RELEASE__
    ? RELEASE_ROOTS
    : [...RELEASE_ROOTS, ...DEVELOPMENT_ROOTS];

export const TRUSTED_ROOTS: readonly TrustedRoot[] = records.map((r) => ({
  name: r.name,
  kid: r.kid,
  alg: r.alg,
  key: createPublicKey({ key: Buffer.from(r.spki, 'base64url'), format: 'der', type: 'spki' }),
}));
