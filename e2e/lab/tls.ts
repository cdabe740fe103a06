// The lab's certificates, made with openssl: a lab CA, and the site's certificate for the
// web host's address signed by it. The cert-expiry fault swaps in one that ends in two days.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LabTls {
  readonly ca: string;
  readonly caKey: string;
  readonly cert: string;
  readonly key: string;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

export function makeCa(dir: string): LabTls {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = join(dir, 'ca.crt');
  const caKey = join(dir, 'ca.key');
  openssl([
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', caKey, '-out', ca, '-days', '3650', '-subj', '/CN=svc lab CA',
  ]); // prettier-ignore
  return { ca, caKey, cert: join(dir, 'site.crt'), key: join(dir, 'site.key') };
}

/** Writes the site's key and a certificate for `address` valid for `days`, signed by the CA. */
export function issueSiteCert(tls: LabTls, address: string, days: number): void {
  const dir = join(tls.cert, '..');
  const csr = join(dir, 'site.csr');
  const ext = join(dir, 'site.ext');
  writeFileSync(
    ext,
    `subjectAltName=IP:${address},DNS:shop.lab\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
  );
  openssl([
    'req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', tls.key, '-out', csr, '-subj', '/CN=shop.lab',
  ]); // prettier-ignore
  openssl([
    'x509', '-req', '-in', csr, '-CA', tls.ca, '-CAkey', tls.caKey, '-CAcreateserial',
    '-days', String(days), '-out', tls.cert, '-extfile', ext,
  ]); // prettier-ignore
  rmSync(csr, { force: true });
}
