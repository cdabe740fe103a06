import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  formatCheckpointBody,
  noteKeyId,
  noteVerifierKey,
  parseCheckpoint,
  sealHash,
  signCheckpoint,
  signNote,
  verifyCheckpoint,
  type CheckpointBody,
  type SealAlgorithm,
  type SealKey,
} from './checkpoint.js';

const sha = (s: string): Buffer => createHash('sha256').update(s).digest();

function makeKey(algorithm: SealAlgorithm, name = 'svc.ledger/test-instance'): SealKey {
  const { privateKey, publicKey } =
    algorithm === 'ed25519'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { algorithm, name, privateKey, publicKey };
}

const BODY: CheckpointBody = {
  origin: 'svc.ledger/test-instance',
  size: 2000,
  root: sha('chain hash at 2000'),
  segment: 2,
  digest: sha('merkle root of 1001..2000'),
  firstSeq: 1001,
  prevSealHash: sha('previous seal'),
};

/** Replaces line `index` (0-based) of the note, keeping the signatures. */
function withLine(note: string, index: number, line: string): string {
  const lines = note.split('\n');
  lines[index] = line;
  return lines.join('\n');
}

describe('formatCheckpointBody', () => {
  it('writes the tlog-checkpoint lines and the four extension lines in order', () => {
    expect(formatCheckpointBody(BODY)).toBe(
      [
        'svc.ledger/test-instance',
        '2000',
        BODY.root.toString('base64'),
        'segment 2',
        `digest ${BODY.digest.toString('base64')}`,
        'first 1001',
        `prev ${BODY.prevSealHash!.toString('base64')}`,
        '',
      ].join('\n'),
    );
  });

  it('writes prev - for the first segment', () => {
    const text = formatCheckpointBody({
      ...BODY,
      segment: 1,
      firstSeq: 1,
      size: 1000,
      prevSealHash: null,
    });
    expect(text.endsWith('\nprev -\n')).toBe(true);
  });

  it('refuses bodies that cannot be sealed faithfully', () => {
    expect(() => formatCheckpointBody({ ...BODY, root: BODY.root.subarray(1) })).toThrow(
      /root must be 32 bytes/,
    );
    expect(() => formatCheckpointBody({ ...BODY, digest: Buffer.alloc(0) })).toThrow(
      /digest must be 32 bytes/,
    );
    expect(() => formatCheckpointBody({ ...BODY, size: -1 })).toThrow(
      /size must be a non-negative integer/,
    );
    expect(() => formatCheckpointBody({ ...BODY, segment: 1.5 })).toThrow(/segment/);
    expect(() => formatCheckpointBody({ ...BODY, firstSeq: 2001 })).toThrow(/after its size/);
    expect(() => formatCheckpointBody({ ...BODY, origin: 'a\nb' })).toThrow(/origin/);
    expect(() => formatCheckpointBody({ ...BODY, origin: '' })).toThrow(/origin/);
  });
});

describe.each(['ed25519', 'ecdsa-p256'] as const)('a %s seal', (algorithm) => {
  const key = makeKey(algorithm);
  const note = signCheckpoint(BODY, key);
  const verify = (n: string, k: KeyObject = key.publicKey, name = key.name) =>
    verifyCheckpoint(n, k, name);

  it('round-trips: parse returns the body, text and one signature', () => {
    const parsed = parseCheckpoint(note);
    expect(parsed.body).toEqual(BODY);
    expect(parsed.text).toBe(formatCheckpointBody(BODY));
    expect(note.startsWith(`${parsed.text}\n\u2014 ${key.name} `)).toBe(true);
    expect(parsed.signatures).toHaveLength(1);
    expect(parsed.signatures[0]!.name).toBe(key.name);
    expect(parsed.signatures[0]!.keyId).toEqual(noteKeyId(key.name, key.publicKey));
  });

  it('verifies with its public key (and with the private key object)', () => {
    expect(verify(note)).toEqual({ ok: true, body: BODY });
    expect(verify(note, key.privateKey).ok).toBe(true);
  });

  it('round-trips the first segment, whose prev is -', () => {
    const first = { ...BODY, segment: 1, firstSeq: 1, size: 1000, prevSealHash: null };
    const result = verify(signCheckpoint(first, key));
    expect(result).toEqual({ ok: true, body: first });
  });

  it.each([
    ['size', 1, '2001'],
    ['root', 2, sha('another chain hash').toString('base64')],
    ['origin', 0, 'svc.ledger/other-instance'],
    ['segment', 3, 'segment 3'],
    ['digest', 4, `digest ${sha('another digest').toString('base64')}`],
    ['first', 5, 'first 1000'],
    ['prev', 6, 'prev -'],
  ])('fails when the %s line is changed', (_what, index, line) => {
    const changed = withLine(note, index, line);
    expect(parseCheckpoint(changed).body).not.toEqual(BODY); // still well-formed
    const result = verify(changed);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.why).toMatch(/does not verify/);
  });

  it('fails when any byte of the signature is changed', () => {
    const sig = parseCheckpoint(note).signatures[0]!;
    for (const at of [0, 10, sig.signature.length - 1]) {
      const bent = Buffer.concat([sig.keyId, sig.signature]);
      bent[4 + at]! ^= 0x01;
      const changed = `${parseCheckpoint(note).text}\n\u2014 ${key.name} ${bent.toString('base64')}\n`;
      const result = verify(changed);
      expect(result.ok, `byte ${at}`).toBe(false);
      expect(!result.ok && result.why).toMatch(/does not verify/);
    }
  });

  it('fails against another key of the same name', () => {
    const other = makeKey(algorithm, key.name);
    const result = verify(note, other.publicKey);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.why).toMatch(/signed by a different key/);
  });

  it('fails against the right key under another name', () => {
    const result = verify(note, key.publicKey, 'svc.ledger/someone-else');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.why).toMatch(/no signature by svc\.ledger\/someone-else/);
  });

  it('fails when the signature is missing', () => {
    const unsigned = `${parseCheckpoint(note).text}\n`;
    const result = verify(unsigned);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.why).toMatch(/malformed checkpoint: note has no signature lines/);
    const textOnly = verify(parseCheckpoint(note).text);
    expect(!textOnly.ok && textOnly.why).toMatch(/malformed checkpoint/);
  });

  it('ignores signatures by other keys, as signed-note requires', () => {
    const witness = makeKey('ed25519', 'witness.example/w1');
    const cosigned = note + signNote(parseCheckpoint(note).text, witness).split('\n\n')[1]!;
    expect(parseCheckpoint(cosigned).signatures.map((s) => s.name)).toEqual([
      key.name,
      witness.name,
    ]);
    expect(verify(cosigned).ok).toBe(true);
    expect(verify(cosigned, witness.publicKey, witness.name).ok).toBe(true);
    const onlyWitness = signNote(parseCheckpoint(note).text, witness);
    const result = verify(onlyWitness);
    expect(!result.ok && result.why).toMatch(/no signature by .*; signed by witness\.example\/w1/);
  });

  it('is refused by a verifier holding the other algorithm', () => {
    const other = makeKey(algorithm === 'ed25519' ? 'ecdsa-p256' : 'ed25519', key.name);
    expect(verify(note, other.publicKey).ok).toBe(false);
  });
});

describe('sealHash', () => {
  it('is SHA-256 of the full note and chains segments', () => {
    const key = makeKey('ed25519');
    const first = signCheckpoint(
      { ...BODY, segment: 1, firstSeq: 1, size: 1000, prevSealHash: null },
      key,
    );
    expect(sealHash(first)).toEqual(sha(first));
    const second = signCheckpoint({ ...BODY, prevSealHash: sealHash(first) }, key);
    const result = verifyCheckpoint(second, key.publicKey, key.name);
    expect(result.ok && result.body.prevSealHash).toEqual(sealHash(first));
    expect(sealHash(first.replace('1000', '1001'))).not.toEqual(sealHash(first));
  });
});

describe('interoperability with the reference implementations', () => {
  // golang.org/x/mod/sumdb/note's documented example key and signed note.
  const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
  const SEED = Buffer.from('AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz', 'base64').subarray(1);
  const TEXT =
    "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
  const SIGNED = `${TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

  it('reproduces the Go note example byte for byte (Ed25519 key id and signature)', () => {
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), SEED]);
    const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const key: SealKey = {
      algorithm: 'ed25519',
      name: 'PeterNeumann',
      privateKey,
      publicKey: createPublicKey(privateKey),
    };
    expect(noteVerifierKey(key.name, key.publicKey)).toBe(VKEY);
    expect(signNote(TEXT, key)).toBe(SIGNED);
  });

  it.each([
    // transparency-dev/formats note tests: the Sigstore Rekor and Pixel 6 log keys (0x02 || SPKI).
    [
      'rekor.sigstore.dev',
      'c0d23d6a',
      'AjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABNhtmPtrWm3U1eQXBogSMdGvXwBcK5AW5i0hrZLOC96l+smGNM7nwZ4QvFK/4sueRoVj//QP22Ni4Qt9DPfkWLc=',
    ],
    [
      'pixel6_transparency_log',
      '91c16e30',
      'AjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABN+4x0Jk1yTwvLFI9A4NDdGZcX0aiWVdWM5XJVy0M4VWD3AvyW5Q6Hs9A0mcDkpUoYgn+KKPNzFC0H3nN3q6JQ8=',
    ],
  ])('computes the ECDSA key id of %s as the witness tooling does', (name, id, material) => {
    const spki = Buffer.from(material, 'base64').subarray(1);
    const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(noteKeyId(name, publicKey).toString('hex')).toBe(id);
    expect(noteVerifierKey(name, publicKey)).toBe(`${name}+${id}+${material}`);
  });
});

describe('parseCheckpoint rejects malformed notes', () => {
  const key = makeKey('ed25519');
  const note = signCheckpoint(BODY, key);
  const text = parseCheckpoint(note).text;
  const sigLine = note.slice(text.length + 1);

  it.each([
    ['no final newline', note.slice(0, -1), /does not end in a newline/],
    ['CRLF line ends', note.replaceAll('\n', '\r\n'), /control characters/],
    ['no blank line', text + sigLine, /no blank line/],
    ['too few lines', withLine(note, 6, '').replace('\n\n\n', '\n\n'), /has 6 lines; expected 7/],
    ['an extra line', `${text}extra\n\n${sigLine}`, /has 8 lines/],
    [
      'leading zero in size',
      withLine(note, 1, '02000'),
      /tree size \(line 2\) is not a decimal integer/,
    ],
    ['negative size', withLine(note, 1, '-1'), /tree size/],
    ['empty origin', withLine(note, 0, ''), /origin \(line 1\) is empty/],
    [
      'root not base64',
      withLine(note, 2, 'not base64!'),
      /root hash \(line 3\) is not canonical standard base64/,
    ],
    [
      'base64url root',
      withLine(note, 2, Buffer.alloc(32, 0xff).toString('base64url')),
      /root hash/,
    ],
    [
      'short root',
      withLine(note, 2, Buffer.alloc(31).toString('base64')),
      /root hash \(line 3\) must be 32 bytes, got 31/,
    ],
    [
      'extensions out of order',
      withLine(withLine(note, 3, `first 1001`), 5, 'segment 2'),
      /line 4 must be "segment <value>"/,
    ],
    ['unknown extension', withLine(note, 4, 'dgst x'), /line 5 must be "digest <value>"/],
    ['first after size', withLine(note, 5, 'first 2001'), /after its size/],
    ['prev neither hash nor -', withLine(note, 6, 'prev none'), /prev \(line 7\)/],
    ['no em dash', note.replace('\u2014 ', '- '), /em dash/],
    [
      'key name with +',
      note.replace(`\u2014 ${key.name} `, `\u2014 a+b `),
      /invalid note key name/,
    ],
    ['signature too short', `${text}\n\u2014 ${key.name} AAAA\n`, /too short/],
    ['extra field', note.slice(0, -1) + ' x\n', /is not "— <key name> <base64 signature>"/],
    ['trailing blank line', `${note}\n`, /no signature lines/],
  ])('%s', (_what, bad, message) => {
    expect(() => parseCheckpoint(bad)).toThrow(message);
    const result = verifyCheckpoint(bad, key.publicKey, key.name);
    expect(result.ok).toBe(false);
  });

  it('refuses absurdly large input', () => {
    expect(() => parseCheckpoint(`${'a'.repeat(70_000)}\n\n${sigLine}`)).toThrow(/longer than/);
  });
});

describe('signNote', () => {
  it('refuses text that would not survive as a note', () => {
    const key = makeKey('ed25519');
    expect(() => signNote('no newline', key)).toThrow(/end in a newline/);
    expect(() => signNote('tab\there\n', key)).toThrow(/control characters/);
    expect(() => signNote('ok\n', { ...key, name: 'has space' })).toThrow(/invalid note key name/);
    expect(() => signNote('ok\n', { ...key, algorithm: 'ecdsa-p256' })).toThrow(
      /is ed25519, not ecdsa-p256/,
    );
  });
});
