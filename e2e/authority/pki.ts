// The test authority's PKI, made with the openssl CLI (Debian's openssl package): a root CA →
// an intermediate CA → a server leaf for 127.0.0.1 and localhost, so that pins can target the
// leaf, the intermediate or the root. Each call makes a fresh, independent hierarchy (the
// intercepting proxy gets its own). Test-only: nothing under server/ imports this.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type LeafKey = 'rsa' | 'p256';

export interface Pki {
  /** The root CA certificate (PEM): what a client adds to its trusted roots. */
  readonly caPem: string;
  readonly intermediatePem: string;
  /** The server's certificate (PEM). */
  readonly leafPem: string;
  readonly leafKeyPem: string;
  /** What a server presents: the leaf, then the intermediate. */
  readonly chainPem: string;
  /** The folder holding the files (ca.crt, intermediate.crt, leaf.crt, leaf.key, chain.crt). */
  readonly dir: string;
  /** Signs one more leaf with this hierarchy's intermediate (another host name or key type). */
  issueLeaf(options?: LeafOptions): { leafPem: string; leafKeyPem: string; chainPem: string };
  remove(): void;
}

export interface PkiOptions {
  /** Common-name prefix, so two hierarchies in one test are told apart in errors. */
  readonly name?: string;
  readonly leaf?: LeafOptions;
}

export interface LeafOptions {
  readonly key?: LeafKey;
  /** Subject alternative names; default IP:127.0.0.1, DNS:localhost. */
  readonly altNames?: readonly string[];
}

function openssl(args: readonly string[], input?: string | Buffer): Buffer {
  try {
    return execFileSync('openssl', args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(input === undefined ? {} : { input }),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (e.code === 'ENOENT') {
      throw new Error(
        'e2e/authority/pki.ts needs the openssl command, which is missing (Debian: apt-get install openssl)',
      );
    }
    throw new Error(`openssl ${args[0] ?? ''} failed: ${e.stderr?.toString().trim() ?? e.message}`);
  }
}

const keyArgs = (key: LeafKey): string[] =>
  key === 'rsa'
    ? ['-newkey', 'rsa:2048']
    : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];

/** A fresh CA → intermediate → leaf hierarchy in a temporary folder. */
export function makePki(options: PkiOptions = {}): Pki {
  const name = options.name ?? 'svc test authority';
  const dir = mkdtempSync(join(tmpdir(), 'svc-pki-'));
  const at = (f: string) => join(dir, f);
  const ext = (f: string, text: string) => {
    writeFileSync(at(f), text);
    return at(f);
  };

  // Root: self-signed, P-256 (the leaf's key type is what the tests vary).
  openssl([
    'req', '-x509', ...keyArgs('p256'), '-nodes', '-keyout', at('ca.key'), '-out', at('ca.crt'),
    '-days', '3650', '-subj', `/CN=${name} root`,
    '-addext', 'basicConstraints=critical,CA:TRUE',
    '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]); // prettier-ignore

  // Intermediate, signed by the root; it may sign leaves only.
  openssl([
    'req', ...keyArgs('p256'), '-nodes', '-keyout', at('intermediate.key'),
    '-out', at('intermediate.csr'), '-subj', `/CN=${name} intermediate`,
  ]); // prettier-ignore
  const caExt = ext(
    'intermediate.ext',
    'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign,cRLSign\n' +
      'subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n',
  );
  openssl([
    'x509', '-req', '-in', at('intermediate.csr'), '-CA', at('ca.crt'), '-CAkey', at('ca.key'),
    '-set_serial', '2', '-days', '3650', '-out', at('intermediate.crt'), '-extfile', caExt,
  ]); // prettier-ignore

  const caPem = readFileSync(at('ca.crt'), 'utf8');
  const intermediatePem = readFileSync(at('intermediate.crt'), 'utf8');
  let serial = 100;

  const issueLeaf = (leaf: LeafOptions = {}) => {
    serial += 1;
    const base = `leaf-${serial}`;
    const alt = (leaf.altNames ?? ['IP:127.0.0.1', 'DNS:localhost']).join(',');
    openssl([
      'req', ...keyArgs(leaf.key ?? 'p256'), '-nodes', '-keyout', at(`${base}.key`),
      '-out', at(`${base}.csr`), '-subj', `/CN=${name} server`,
    ]); // prettier-ignore
    const leafExt = ext(
      `${base}.ext`,
      `subjectAltName=${alt}\nbasicConstraints=critical,CA:FALSE\n` +
        'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' +
        'subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid:always\n',
    );
    openssl([
      'x509', '-req', '-in', at(`${base}.csr`), '-CA', at('intermediate.crt'),
      '-CAkey', at('intermediate.key'), '-set_serial', String(serial), '-days', '825',
      '-out', at(`${base}.crt`), '-extfile', leafExt,
    ]); // prettier-ignore
    const leafPem = readFileSync(at(`${base}.crt`), 'utf8');
    return {
      leafPem,
      leafKeyPem: readFileSync(at(`${base}.key`), 'utf8'),
      chainPem: leafPem + intermediatePem,
    };
  };

  const first = issueLeaf(options.leaf);
  writeFileSync(at('leaf.crt'), first.leafPem);
  writeFileSync(at('leaf.key'), first.leafKeyPem, { mode: 0o600 });
  writeFileSync(at('chain.crt'), first.chainPem);
  return {
    caPem,
    intermediatePem,
    ...first,
    dir,
    issueLeaf,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `sha256/<base64>` of a certificate's SubjectPublicKeyInfo, computed with node:crypto. */
export function spkiPin(certPem: string): string {
  const spki = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return `sha256/${createHash('sha256').update(spki).digest('base64')}`;
}

/**
 * The same pin computed the way curl's documentation and RFC 7469 do it, by the openssl CLI:
 * `openssl x509 -pubkey | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
 */
export function opensslSpkiPin(certPem: string): string {
  const pubPem = openssl(['x509', '-noout', '-pubkey'], certPem);
  const der = openssl(['pkey', '-pubin', '-outform', 'der'], pubPem);
  const digest = openssl(['dgst', '-sha256', '-binary'], der);
  return `sha256/${digest.toString('base64')}`;
}

/** Writes PEM text to a file in a fresh temporary folder (an SVC_CA_BUNDLE for a test). */
export function writePemFile(pem: string, name = 'bundle.pem'): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pem-'));
  const path = join(dir, name);
  writeFileSync(path, pem);
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
