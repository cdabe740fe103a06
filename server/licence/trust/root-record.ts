import type { SignatureAlg } from '../document/envelope.js';

/** A root key as build/authority-keys.json lists it: SPKI DER in base64url. */
export interface RootRecord {
  readonly name: string;
  readonly alg: SignatureAlg;
  readonly kid: string;
  readonly spki: string;
}
