// The sealed file format on its own: round trips with scrypt and with PBKDF2 (FIPS), one
// error for a wrong passphrase and for damage anywhere, and parameters out of range refused
// before any KDF runs.
import { describe, expect, it } from 'vitest';
import { openFile, readHeader, sealFile, SEALED_MAGIC, SealedFileError } from './sealed-file.js';

const META = {
  keychain_id: 'kc_test',
  source_fp: 'A'.repeat(52),
  epoch: 1,
  content_version: 3,
  parts: ['policy'],
  created_at: '2026-11-28T12:00:00.000Z',
};
const PLAIN = Buffer.from('{"parts":{"policy":{}}}');

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'opened';
  } catch (err) {
    return err instanceof SealedFileError ? err.code : `other: ${(err as Error).message}`;
  }
}

describe('sealed keychain files', () => {
  it.each([false, true])(
    'round-trips (fips %s), the header naming its KDF and cipher',
    async (fips) => {
      const file = await sealFile(PLAIN, 'correct horse battery', META, fips);
      const lines = file.split('\n');
      expect(lines[0]).toBe(SEALED_MAGIC);
      expect(JSON.parse(lines[1] ?? '')).toMatchObject(
        fips
          ? { kdf: 'pbkdf2-sha256', iter: 600_000, aead: 'aes-256-gcm' }
          : { kdf: 'scrypt', logN: 17, r: 8, p: 1, aead: 'chacha20-poly1305' },
      );
      const opened = await openFile(file, 'correct horse battery', fips);
      expect(opened.plaintext.toString()).toBe(PLAIN.toString());
      expect(opened.header).toMatchObject(META);
    },
    20_000,
  );

  it('gives the same error for a wrong passphrase and for a changed header or body', async () => {
    const file = await sealFile(PLAIN, 'correct horse battery', META, true);
    const [magic, header = '', body = ''] = file.split('\n');
    expect(await code(openFile(file, 'wrong horse battery', true))).toBe('sealed_unreadable');
    const otherVersion = header.replace('"content_version":3', '"content_version":4');
    expect(
      await code(openFile(`${magic}\n${otherVersion}\n${body}\n`, 'correct horse battery', true)),
    ).toBe('sealed_unreadable');
    const flipped = `${body.slice(0, 10)}${body[10] === 'A' ? 'B' : 'A'}${body.slice(11)}`;
    expect(
      await code(openFile(`${magic}\n${header}\n${flipped}\n`, 'correct horse battery', true)),
    ).toBe('sealed_unreadable');
  }, 20_000);

  it('refuses a logN of 30 before any KDF runs (no memory bomb)', async () => {
    const file = await sealFile(PLAIN, 'correct horse battery', META, false);
    const bomb = file.replace('"logN":17', '"logN":30');
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    expect(await code(openFile(bomb, 'correct horse battery', false))).toBe(
      'sealed_params_out_of_range',
    );
    expect(performance.now() - t0).toBeLessThan(200);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
    expect(() => readHeader(file.replace('"r":8', '"r":64'), false)).toThrow(SealedFileError);
    expect(await code(openFile(file, 'correct horse battery', true))).toBe(
      'sealed_kdf_unavailable_in_fips',
    );
  }, 20_000);

  it('refuses header fields of the wrong type or size before decoding anything', async () => {
    const file = await sealFile(PLAIN, 'correct horse battery', META, true);
    const [magic, header = '', body = ''] = file.split('\n');
    const h = JSON.parse(header) as Record<string, unknown>;
    for (const bad of [
      { salt: { length: 3e8 } },
      { salt: 'AAAA' },
      { nonce: 7 },
      { parts: 'policy' },
      { content_version: 0 },
    ]) {
      const line = JSON.stringify({ ...h, ...bad });
      const t0 = performance.now();
      expect(
        await code(openFile(`${magic}\n${line}\n${body}\n`, 'correct horse battery', true)),
      ).toBe('sealed_unreadable');
      expect(performance.now() - t0).toBeLessThan(200);
    }
  });

  it('names a file of another version, and one that is no sealed file at all', () => {
    expect(() => readHeader('svc-keychain-sealed/v9\n{}\n', false)).toThrow(/cannot read/);
    try {
      readHeader('hello\n', false);
    } catch (err) {
      expect((err as SealedFileError).code).toBe('sealed_unreadable');
    }
  });
});
