// Signed, expiring, single-use links against a real SQLite file with the migrations: a
// tampered or foreign token, expiry, replay (also after a restart), the other decision's
// link refused once one was used, and the link key file.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { ensureDataDir } from '../install/index.js';
import { createFakeClock } from '../shared/clock.js';
import {
  createLinkSigner,
  createLinkUseStore,
  LINK_KEY_FILE,
  loadOrCreateLinkKey,
  type LinkCheck,
} from './index.js';

const MIGRATIONS = fileURLToPath(new URL('../db/migrations/', import.meta.url));
const EXPIRES = '2026-11-22T01:00:00.000Z';

let dir: string;
const opened: { close(): void }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-links-'));
  ensureDataDir(dir);
});
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What the server builds at start; a second call is a restart on the same data folder. */
function start() {
  const db = openDatabase(join(dir, 'svc.db'));
  opened.push(db);
  migrate(db, loadMigrations(MIGRATIONS));
  const clock = createFakeClock('2026-11-22T00:00:00.000Z');
  const signer = createLinkSigner({
    key: loadOrCreateLinkKey(dir),
    clock,
    used: createLinkUseStore(db),
  });
  return { db, clock, signer };
}

const reason = (c: LinkCheck): string => (c.ok ? 'ok' : c.reason);

describe('approval links', () => {
  it('signs a link that verifies to its request, decision and expiry, and redeems once', () => {
    const { signer } = start();
    const token = signer.sign({ request_id: 'ap-1', decision: 'approve', expires_at: EXPIRES });
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const expected = {
      ok: true,
      payload: { request_id: 'ap-1', decision: 'approve', expires_at: EXPIRES },
      token_id: expect.stringMatching(/^[0-9a-f]{32}$/) as unknown,
    };
    // verify does not use it: a mail scanner fetching the link decides nothing.
    expect(signer.verify(token)).toEqual(expected);
    expect(signer.verify(token)).toEqual(expected);
    expect(signer.redeem(token)).toEqual(expected);
    const again = signer.redeem(token);
    expect(again).toMatchObject({ ok: false, reason: 'already_used' });
    expect(again.ok ? '' : again.message).toBe(
      'a link of this request was already used (approve, at 2026-11-22T00:00:00.000Z)',
    );
    expect(reason(signer.verify(token))).toBe('already_used');
  });

  it('refuses a tampered token, a foreign key and garbage', () => {
    const { signer, clock } = start();
    const token = signer.sign({ request_id: 'ap-2', decision: 'deny', expires_at: EXPIRES });
    const [payload = '', mac = ''] = token.split('.');
    // Same MAC, payload changed to approve.
    const forged = Buffer.from(
      Buffer.from(payload, 'base64url').toString('utf8').replace('"deny"', '"approve"'),
    ).toString('base64url');
    expect(reason(signer.redeem(`${forged}.${mac}`))).toBe('bad_signature');
    // One character of the MAC changed.
    const flipped = `${payload}.${(mac[0] === 'A' ? 'B' : 'A') + mac.slice(1)}`;
    expect(reason(signer.redeem(flipped))).toBe('bad_signature');
    // Signed under another key (another install).
    const other = createLinkSigner({
      key: Buffer.alloc(32, 7),
      clock,
      used: { find: () => null, markUsed: () => true },
    });
    const foreign = other.sign({ request_id: 'ap-2', decision: 'approve', expires_at: EXPIRES });
    expect(signer.redeem(foreign)).toEqual({
      ok: false,
      reason: 'bad_signature',
      message: 'this link was not made by this service or was changed',
    });
    for (const junk of ['', 'abc', `${payload}.`, `${payload}.${mac}.x`, 'a'.repeat(5000)])
      expect(reason(signer.redeem(junk))).toBe('malformed');
    // Nothing was used by the refusals: the real link still works.
    expect(reason(signer.redeem(token))).toBe('ok');
  });

  it('refuses an expired link, and makes none that is already expired', () => {
    const { signer, clock } = start();
    const token = signer.sign({ request_id: 'ap-3', decision: 'approve', expires_at: EXPIRES });
    clock.set('2026-11-22T00:59:59.999Z');
    expect(reason(signer.verify(token))).toBe('ok');
    clock.set(EXPIRES);
    expect(signer.redeem(token)).toEqual({
      ok: false,
      reason: 'expired',
      message: `this link expired at ${EXPIRES}`,
    });
    expect(() =>
      signer.sign({ request_id: 'ap-3', decision: 'approve', expires_at: EXPIRES }),
    ).toThrow('expires_at must be in the future');
    expect(() =>
      signer.sign({ request_id: 'ap-3', decision: 'approve', expires_at: 'soon' }),
    ).toThrow('expires_at is not a valid timestamp');
  });

  it("refuses the other decision's link once one link of the request was used", () => {
    const { signer } = start();
    const { approve, deny } = signer.signPair('ap-4', EXPIRES);
    const other = signer.signPair('ap-5', EXPIRES);
    expect(reason(signer.redeem(deny))).toBe('ok');
    const late = signer.redeem(approve);
    expect(late).toMatchObject({ ok: false, reason: 'already_used' });
    expect(late.ok ? '' : late.message).toMatch(/already used \(deny, at /);
    // Another request is not affected.
    expect(reason(signer.redeem(other.approve))).toBe('ok');
  });

  it('refuses a replay after a restart: the use and the key survive', () => {
    const first = start();
    const token = first.signer.sign({
      request_id: 'ap-6',
      decision: 'approve',
      expires_at: EXPIRES,
    });
    const unused = first.signer.sign({
      request_id: 'ap-7',
      decision: 'deny',
      expires_at: EXPIRES,
    });
    expect(reason(first.signer.redeem(token))).toBe('ok');
    first.db.close();

    const second = start();
    expect(reason(second.signer.redeem(token))).toBe('already_used');
    // The same key after the restart: a link made before still works.
    expect(reason(second.signer.redeem(unused))).toBe('ok');
    expect(
      second.db.prepare('SELECT request_id, decision FROM channel_link_uses ORDER BY 1').all(),
    ).toEqual([
      { request_id: 'ap-6', decision: 'approve' },
      { request_id: 'ap-7', decision: 'deny' },
    ]);
  });

  it('keeps the link key private in the secrets folder; a new key voids every link', () => {
    const { signer, db } = start();
    const token = signer.sign({ request_id: 'ap-8', decision: 'approve', expires_at: EXPIRES });
    const file = join(dir, 'secrets', LINK_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(loadOrCreateLinkKey(dir).equals(loadOrCreateLinkKey(dir))).toBe(true);
    db.close();
    rmSync(file);
    const after = start();
    expect(reason(after.signer.verify(token))).toBe('bad_signature');
    writeFileSync(file, 'short\n');
    expect(() => loadOrCreateLinkKey(dir)).toThrow(/not hex of at least 32 bytes/);
  });
});
