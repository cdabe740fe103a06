import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MerkleBuilder, merkleLeafHash, merkleNodeHash, merkleRoot } from './merkle.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const unhex = (s: string): Buffer => Buffer.from(s, 'hex');

// The RFC 6962 reference tree used by Certificate Transparency and transparency-dev/merkle.
const CT_INPUTS = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map(unhex);

const EMPTY_ROOT = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

// Root after the first n inputs, n = 1..8.
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

// ---- a deliberately naive reference: the RFC's recursive definition, word for word ----------

function refSha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function refMth(d: readonly Uint8Array[]): Buffer {
  if (d.length === 0) return refSha256();
  if (d.length === 1) return refSha256(Uint8Array.of(0), d[0]!);
  const k = largestPowerOfTwoBelow(d.length);
  return refSha256(Uint8Array.of(1), refMth(d.slice(0, k)), refMth(d.slice(k)));
}

/** Deterministic pseudo-random entries of varying length (0..64 bytes). */
function entries(n: number, salt = 'x'): Buffer[] {
  return Array.from({ length: n }, (_, i) => {
    const seed = refSha256(Buffer.from(`${salt}:${i}`));
    return Buffer.concat([seed, refSha256(seed)]).subarray(0, seed[0]! % 65);
  });
}

describe('merkleRoot', () => {
  it('is SHA-256 of nothing for the empty list', () => {
    expect(hex(merkleRoot([]))).toBe(EMPTY_ROOT);
  });

  it('matches the published RFC 6962 roots for sizes 1..8', () => {
    for (let n = 1; n <= 8; n++) {
      expect(hex(merkleRoot(CT_INPUTS.slice(0, n))), `size ${n}`).toBe(CT_ROOTS[n - 1]);
    }
  });

  it('agrees with the recursive definition for every size 0..300', () => {
    const all = entries(300);
    for (let n = 0; n <= 300; n++) {
      const d = all.slice(0, n);
      expect(hex(merkleRoot(d)), `size ${n}`).toBe(hex(refMth(d)));
    }
  });

  it('agrees with the recursive definition around powers of two and a full segment', () => {
    for (const n of [511, 512, 513, 1000, 1023, 1024, 1025]) {
      const d = entries(n, `big${n}`);
      expect(hex(merkleRoot(d)), `size ${n}`).toBe(hex(refMth(d)));
    }
  });

  it('hashes 32-byte chain hashes (the ledger case) like any other entry', () => {
    const d = Array.from({ length: 77 }, (_, i) => refSha256(Buffer.from(String(i))));
    expect(hex(merkleRoot(d))).toBe(hex(refMth(d)));
  });

  it('separates leaves from nodes (0x00 / 0x01 prefixes)', () => {
    const a = merkleLeafHash(Buffer.from('a'));
    const b = merkleLeafHash(Buffer.from('b'));
    expect(hex(merkleNodeHash(a, b))).toBe(hex(refSha256(Uint8Array.of(1), a, b)));
    // A single leaf whose bytes are a node's preimage must not collide with that node.
    const forged = Buffer.concat([a, b]);
    expect(hex(merkleRoot([forged]))).not.toBe(
      hex(merkleRoot([Buffer.from('a'), Buffer.from('b')])),
    );
  });

  it('changes when any entry changes, moves or disappears', () => {
    const d = entries(10);
    const root = hex(merkleRoot(d));
    const flipped = d.map((e) => Buffer.from(e));
    flipped[3] = Buffer.concat([flipped[3]!, Buffer.of(0)]);
    expect(hex(merkleRoot(flipped))).not.toBe(root);
    const swapped = [...d];
    [swapped[1], swapped[2]] = [swapped[2]!, swapped[1]!];
    expect(hex(merkleRoot(swapped))).not.toBe(root);
    expect(hex(merkleRoot(d.slice(0, 9)))).not.toBe(root);
  });

  it('does not modify its input', () => {
    const d = entries(9);
    const before = d.map(hex);
    merkleRoot(d);
    expect(d.map(hex)).toEqual(before);
  });
});

describe('MerkleBuilder', () => {
  const chain = Array.from({ length: 1025 }, (_, i) => refSha256(Buffer.from(`e${i}`)));

  it('gives merkleRoot of the 32-byte entries added one by one in hex, for every size', () => {
    const tree = new MerkleBuilder();
    for (const n of [0, 1, 2, 3, 7, 8, 9, 511, 512, 513, 1000, 1024, 1025]) {
      const d = chain.slice(0, n);
      for (const e of d) tree.addHex(hex(e));
      expect(hex(tree.root()), `size ${n}`).toBe(hex(refMth(d)));
    }
  });

  it('starts afresh after each root, and a root is not overwritten by the next tree', () => {
    const tree = new MerkleBuilder();
    for (const e of chain.slice(0, 5)) tree.addHex(hex(e));
    const first = tree.root();
    const kept = hex(first);
    for (const e of chain.slice(5, 9)) tree.addHex(hex(e));
    expect(hex(tree.root())).toBe(hex(refMth(chain.slice(5, 9))));
    expect(hex(first)).toBe(kept);
  });
});
