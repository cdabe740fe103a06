// The keys whose pack signatures this build accepts, compiled in so that nothing on the host
// (no file, no variable) can widen trust: a pack signed by any other key is refused.
//
// This is the development pack key, whose private half is build/packs/dev-pack-key.pem in the
// repository on purpose (like the development licence authority): anyone can sign packs a
// development build accepts. Release builds replace this list with the release signing key,
// whose private half never enters the repository.
import { trustedKey, type TrustedKey } from './signing.js';

export const DEV_PACK_PUBLIC_KEY_PEM = `-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAdrEoNNjgS2bxdIHCtNgKeo9JW60Wbh26o7RtfdIwKUs=
-----END PUBLIC KEY-----
`;

export const TRUSTED_PACK_KEYS: readonly TrustedKey[] = [
  trustedKey('development pack key', DEV_PACK_PUBLIC_KEY_PEM),
];
