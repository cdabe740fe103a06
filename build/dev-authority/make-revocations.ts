// Writes build/revocations.json, the revocation list bundled with the build (licence.md §3.9:
// seq 1, nothing revoked, and no expiry), signed by the development authority's revocations
// key. The key (revocations-ed25519.pem) and its statement (revocations-statement.json, signed
// by the development root) sit here and are made once if missing; Ed25519 is deterministic, so
// running this again rewrites the same bytes (build/revocations.test.ts checks that).
//   npx tsx build/dev-authority/make-revocations.ts
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kidOf, seal, spkiDer, type Envelope, type Signer } from '../../server/licence/index.js';
import { REVOCATIONS_FORMAT } from '../../server/licence/index.js';

const HERE = import.meta.dirname;
export const KEY_FILE = join(HERE, 'revocations-ed25519.pem');
export const STATEMENT_FILE = join(HERE, 'revocations-statement.json');
export const LIST_FILE = join(HERE, '..', 'revocations.json');

const signerOf = (key: KeyObject): Signer => ({
  alg: key.asymmetricKeyType === 'ed25519' ? 'Ed25519' : 'ES256',
  kid: kidOf(key),
  key,
});

function rootSigners(): Signer[] {
  return ['development-root-ed25519.pem', 'development-root-p256.pem'].map((f) =>
    signerOf(createPrivateKey(readFileSync(join(HERE, f)))),
  );
}

/** The bundled list's text, from the key and statement kept here. */
export function bundledListText(key: KeyObject, statement: Envelope): string {
  const list = seal(
    REVOCATIONS_FORMAT,
    { seq: 1, issued_at: '2026-11-28T00:00:00.000Z', licences: [], keys: [], grants: [] },
    [signerOf(key)],
    [statement],
  );
  return `${JSON.stringify(list, null, 2)}\n`;
}

export function readKeyAndStatement(): { key: KeyObject; statement: Envelope } {
  return {
    key: createPrivateKey(readFileSync(KEY_FILE)),
    statement: JSON.parse(readFileSync(STATEMENT_FILE, 'utf8')) as Envelope,
  };
}

if (process.argv[1]?.endsWith('make-revocations.ts') === true) {
  if (!existsSync(KEY_FILE)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(KEY_FILE, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const statement = seal(
      'svc-key/1',
      {
        kid: kidOf(privateKey),
        alg: 'Ed25519',
        spki: spkiDer(privateKey).toString('base64url'),
        usage: ['revocations'],
        not_before: '2026-01-01T00:00:00.000Z',
        not_after: '2126-01-01T00:00:00.000Z',
        serial: 1,
      },
      rootSigners(),
    );
    writeFileSync(STATEMENT_FILE, `${JSON.stringify(statement, null, 2)}\n`);
  }
  const { key, statement } = readKeyAndStatement();
  writeFileSync(LIST_FILE, bundledListText(key, statement));
  process.stdout.write(`wrote ${LIST_FILE} (seq 1, signed by ${kidOf(key)})\n`);
}
