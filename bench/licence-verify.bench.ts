// Verifying a licence (licence.md §4.3: under 2 ms p99 for two signatures and their key
// statements): verifyLicence on a dual-signed licence carrying both statements, against the
// baseline of the cryptography alone in the same run (one Ed25519 and one ES256 verify of the
// same bytes, plus the two statements' root signatures). The difference is parsing (strict JSON,
// base64url, TypeBox) and the trust rules.
import { createPublicKey, verify } from 'node:crypto';
import { signingInput } from '../server/licence/document/envelope.js';
import { verifyLicence } from '../server/licence/document/licence-doc.js';
import { TRUSTED_ROOTS } from '../server/licence/trust/trusted-roots.js';
import { createTestIssuer, licencePayload } from '../server/testing/licence/issuer.js';
import type { Benchmark, Figure } from './run.js';

const ROUNDS = 4000;

function p(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

const bench: Benchmark = {
  name: 'licence-verify',
  title: 'verify a dual-signed licence with its key statements vs the signatures alone',
  async run(ctx): Promise<Figure[]> {
    const issuer = createTestIssuer();
    const env = issuer.licence(licencePayload('2026-11-27T00:00:00.000Z'));
    const text = JSON.stringify(env);
    const ctxTrust = { roots: TRUSTED_ROOTS, revokedKids: new Set<string>(), fips: false };
    const input = signingInput(env.format, Buffer.from(env.payload, 'base64url'));
    const edKey = createPublicKey(issuer.ed.signer.key);
    const p256Key = createPublicKey(issuer.p256.signer.key);
    const [edSig, p256Sig] = env.signatures.map((s) => Buffer.from(s.sig, 'base64url'));
    if (edSig === undefined || p256Sig === undefined) throw new Error('expected two signatures');
    const time = (fn: () => void): number[] => {
      for (let i = 0; i < 200; i++) fn(); // warm up
      const out: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const t0 = process.hrtime.bigint();
        fn();
        out.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
      return out.sort((a, b) => a - b);
    };
    const whole = time(() => {
      if (!verifyLicence(text, ctxTrust).ok) throw new Error('the bench licence does not verify');
    });
    // Four signatures in all: the licence's two and each statement's two root signatures.
    const crypto = time(() => {
      for (let r = 0; r < 2; r++) {
        verify(null, input, edKey, edSig);
        verify('sha256', input, { key: p256Key, dsaEncoding: 'ieee-p1363' }, p256Sig);
      }
    });
    ctx.log(
      `verifyLicence p50 ${p(whole, 0.5).toFixed(3)} ms, p99 ${p(whole, 0.99).toFixed(3)} ms; signatures alone p99 ${p(crypto, 0.99).toFixed(3)} ms`,
    );
    return [
      {
        name: 'licence verify p99',
        value: p(whole, 0.99),
        unit: 'ms',
        baseline: p(crypto, 0.99),
        aim: { on: 'value', atMost: 2 },
      },
      { name: 'licence verify p50', value: p(whole, 0.5), unit: 'ms', baseline: p(crypto, 0.5) },
    ];
  },
};
export default bench;
