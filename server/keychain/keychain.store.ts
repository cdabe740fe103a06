// The keychain's tables. keychain_state, keychain_members, keychain_log and
// keychain_site_keys are this projection of keychain.* events (rebuild replays them);
// keychain_nonces and keychain_contact are operational state written here directly.
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import { canonicalJson } from '../shared/canonical-json.js';
import type { KeychainEvents } from './keychain.events.js';
import { recordHash, type LogRecord } from './authority-log.js';
import { createPairingStore } from './pairing.store.js';

export type KeychainRole = 'home' | 'member';
export type MemberHealth = 'ok' | 'silent' | 'gone';

export interface StateRow {
  readonly keychain_id: string;
  readonly role: KeychainRole;
  readonly epoch: number;
  readonly home_fp: string;
  readonly label: string;
  readonly via: string;
  readonly since: string;
  /** JSON array: on a member, the parts its home carries. */
  readonly carried: string;
  /** JSON arrays: on the home, the parts it does not carry; on a member, those it keeps its own. */
  readonly skip: string;
  readonly owned: string;
}

export interface PartRow {
  readonly part: string;
  readonly version: number;
  readonly sha256: string;
  readonly epoch: number;
  readonly at: string;
}

export interface WitnessRow {
  readonly fingerprint: string;
  readonly seq: number;
  readonly hash: string;
  readonly at: string;
  readonly mismatch: string | null;
  readonly mismatch_at: string | null;
}

export interface MemberRow {
  readonly fingerprint: string;
  readonly label: string;
  readonly role: KeychainRole;
  readonly sig_pub: string;
  readonly kx_pub: string;
  readonly address: string | null;
  readonly via: string;
  readonly added_at: string;
  readonly health: MemberHealth;
  readonly removed_at: string | null;
  /** 1 when it holds a licence seat (the home always does). */
  readonly licensed: number;
}

export interface SiteKeyRow {
  readonly id: string;
  readonly label: string;
  readonly purpose: string;
  readonly licence: number;
  readonly created_by: string;
  readonly created_at: string;
  readonly expires_at: string;
  readonly secret_hash: string;
  readonly used_at: string | null;
  readonly used_by_fp: string | null;
  readonly revoked_at: string | null;
  readonly revoked_reason: string | null;
  readonly failed_attempts: number;
}

/** The most wrong secrets a site key takes before it is locked (design §2.3). */
export const SITE_KEY_MAX_FAILURES = 5;

export function createKeychainStore(db: Database) {
  const state = db.prepare<[], StateRow>(
    'SELECT keychain_id, role, epoch, home_fp, label, via, since, carried, skip, owned FROM keychain_state WHERE id = 1',
  );
  const putState = db.prepare<Omit<StateRow, 'skip' | 'owned'>>(
    `INSERT OR REPLACE INTO keychain_state (id, keychain_id, role, epoch, home_fp, label, via, since, carried)
     VALUES (1, @keychain_id, @role, @epoch, @home_fp, @label, @via, @since, @carried)`,
  );
  const setSkip = db.prepare<[string]>('UPDATE keychain_state SET skip = ? WHERE id = 1');
  const setOwned = db.prepare<[string]>('UPDATE keychain_state SET owned = ? WHERE id = 1');
  const dropPart = db.prepare<[string]>('DELETE FROM keychain_parts WHERE part = ?');
  const dropAllParts = db.prepare<[]>('DELETE FROM keychain_parts');
  const setCarried = db.prepare<[string]>('UPDATE keychain_state SET carried = ? WHERE id = 1');
  const parts = db.prepare<[], PartRow>(
    'SELECT part, version, sha256, epoch, at FROM keychain_parts ORDER BY part',
  );
  const part = db.prepare<[string], PartRow>(
    'SELECT part, version, sha256, epoch, at FROM keychain_parts WHERE part = ?',
  );
  const putPart = db.prepare<PartRow>(
    `INSERT OR REPLACE INTO keychain_parts (part, version, sha256, epoch, at)
     VALUES (@part, @version, @sha256, @epoch, @at)`,
  );
  const moveHome = db.prepare<[string, number, string]>(
    'UPDATE keychain_state SET role = ?, epoch = ?, home_fp = ? WHERE id = 1',
  );
  const setRole = db.prepare<[string, string]>(
    'UPDATE keychain_members SET role = ? WHERE fingerprint = ?',
  );
  const setEpoch = db.prepare<[number]>(
    'UPDATE keychain_state SET epoch = max(epoch, ?) WHERE id = 1',
  );
  const members = db.prepare<[], MemberRow>(
    `SELECT fingerprint, label, role, sig_pub, kx_pub, address, via, added_at, health, removed_at,
       licensed FROM keychain_members WHERE removed_at IS NULL ORDER BY role = 'member', added_at, fingerprint`,
  );
  // Removed members too: their tombstone answers 403 member_removed.
  const member = db.prepare<[string], MemberRow>(
    `SELECT fingerprint, label, role, sig_pub, kx_pub, address, via, added_at, health, removed_at,
       licensed FROM keychain_members WHERE fingerprint = ?`,
  );
  const removeMember = db.prepare<[string, string]>(
    'UPDATE keychain_members SET removed_at = ? WHERE fingerprint = ?',
  );
  const renameMember = db.prepare<[string, string]>(
    'UPDATE keychain_members SET label = ? WHERE fingerprint = ?',
  );
  const forget = [
    db.prepare<[]>('DELETE FROM keychain_state'),
    db.prepare<[]>('DELETE FROM keychain_members'),
    db.prepare<[]>('DELETE FROM keychain_log'),
    db.prepare<[]>('DELETE FROM keychain_parts'),
  ];
  const putMember = db.prepare<Omit<MemberRow, 'health' | 'removed_at'>>(
    `INSERT INTO keychain_members (fingerprint, label, role, sig_pub, kx_pub, address, via, added_at, licensed)
     VALUES (@fingerprint, @label, @role, @sig_pub, @kx_pub, @address, @via, @added_at, @licensed)
     ON CONFLICT (fingerprint) DO UPDATE SET label = excluded.label, role = excluded.role,
       sig_pub = excluded.sig_pub, kx_pub = excluded.kx_pub, address = excluded.address,
       via = excluded.via, removed_at = NULL, health = 'ok', licensed = excluded.licensed`,
  );
  const setLicensed = db.prepare<[string]>(
    'UPDATE keychain_members SET licensed = 1 WHERE fingerprint = ?',
  );
  const dropMembers = db.prepare<[]>('DELETE FROM keychain_members');
  const setHealth = db.prepare<[MemberHealth, string]>(
    'UPDATE keychain_members SET health = ? WHERE fingerprint = ?',
  );
  const log = db.prepare<[], { record: string }>('SELECT record FROM keychain_log ORDER BY seq');
  const head = db.prepare<[], { seq: number; hash: string }>(
    'SELECT seq, hash FROM keychain_log ORDER BY seq DESC LIMIT 1',
  );
  const putRecord = db.prepare<[number, number, string, string, string]>(
    'INSERT OR REPLACE INTO keychain_log (seq, epoch, type, record, hash) VALUES (?, ?, ?, ?, ?)',
  );
  const dropLog = db.prepare<[]>('DELETE FROM keychain_log');
  const siteKeys = db.prepare<[], SiteKeyRow>(
    'SELECT * FROM keychain_site_keys ORDER BY created_at DESC, id',
  );
  const siteKey = db.prepare<[string], SiteKeyRow>('SELECT * FROM keychain_site_keys WHERE id = ?');
  const putSiteKey = db.prepare<
    Omit<SiteKeyRow, 'used_at' | 'used_by_fp' | 'revoked_at' | 'revoked_reason' | 'failed_attempts'>
  >(
    `INSERT INTO keychain_site_keys (id, label, purpose, licence, created_by, created_at, expires_at, secret_hash)
     VALUES (@id, @label, @purpose, @licence, @created_by, @created_at, @expires_at, @secret_hash)`,
  );
  const revokeKey = db.prepare<[string, string, string]>(
    'UPDATE keychain_site_keys SET revoked_at = ?, revoked_reason = ? WHERE id = ? AND revoked_at IS NULL',
  );
  const failKey = db.prepare<[string]>(
    'UPDATE keychain_site_keys SET failed_attempts = failed_attempts + 1 WHERE id = ?',
  );
  // Consumed once: the WHERE makes a second use change nothing (design §2.3).
  const useKey = db.prepare<[string, string, string]>(
    'UPDATE keychain_site_keys SET used_at = ?, used_by_fp = ? WHERE id = ? AND used_at IS NULL',
  );
  const sealed = db.prepare<[string, string], { content_version: number; sha256: string }>(
    'SELECT content_version, sha256 FROM keychain_sealed WHERE kind = ? AND keychain_id = ?',
  );
  const putSealed = db.prepare<[string, string, number, string, string]>(
    'INSERT OR REPLACE INTO keychain_sealed (kind, keychain_id, content_version, sha256, at) VALUES (?, ?, ?, ?, ?)',
  );
  const witness = db.prepare<[string], WitnessRow>(
    'SELECT fingerprint, seq, hash, at, mismatch, mismatch_at FROM keychain_witness WHERE fingerprint = ?',
  );
  const witnesses = db.prepare<[], WitnessRow>(
    'SELECT fingerprint, seq, hash, at, mismatch, mismatch_at FROM keychain_witness ORDER BY fingerprint',
  );
  const putWitness = db.prepare<[string, number, string, string]>(
    `INSERT INTO keychain_witness (fingerprint, seq, hash, at) VALUES (?, ?, ?, ?)
     ON CONFLICT (fingerprint) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, at = excluded.at`,
  );
  const dropWitness = db.prepare<[string]>('DELETE FROM keychain_witness WHERE fingerprint = ?');
  const markWitness = db.prepare<[string, string, string]>(
    'UPDATE keychain_witness SET mismatch = ?, mismatch_at = ? WHERE fingerprint = ?',
  );
  const addNonce = db.prepare<[string, string, number]>(
    'INSERT OR IGNORE INTO keychain_nonces (fingerprint, nonce, expires_at) VALUES (?, ?, ?)',
  );
  const dropNonces = db.prepare<[number]>('DELETE FROM keychain_nonces WHERE expires_at <= ?');
  const countNonces = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM keychain_nonces');
  const heard = db.prepare<[string, string]>(
    `INSERT INTO keychain_contact (fingerprint, heard_at) VALUES (?, ?)
     ON CONFLICT (fingerprint) DO UPDATE SET heard_at = excluded.heard_at`,
  );
  const contact = db.prepare<[], { fingerprint: string; heard_at: string }>(
    'SELECT fingerprint, heard_at FROM keychain_contact',
  );

  function putLog(record: LogRecord): void {
    putRecord.run(record.seq, record.epoch, record.type, canonicalJson(record), recordHash(record));
  }

  function replaceRoster(
    list: readonly (Omit<MemberRow, 'health' | 'via' | 'added_at' | 'removed_at' | 'licensed'> & {
      via?: string;
    })[],
    records: readonly LogRecord[],
    at: string,
  ): void {
    dropMembers.run();
    for (const m of list)
      putMember.run({ ...m, via: m.via ?? 'roster', added_at: at, licensed: 1 });
    dropLog.run();
    for (const r of records) putLog(r);
  }

  return {
    /** Pairing's own operational tables (pairing.store.ts). */
    pairing: createPairingStore(db),
    state: (): StateRow | null => state.get() ?? null,
    members: (): MemberRow[] => members.all(),
    /** The roster as installs send it to each other (no health, no local columns). */
    rosterEntries: () =>
      members.all().map((m) => ({
        fingerprint: m.fingerprint,
        label: m.label,
        role: m.role,
        sig_pub: m.sig_pub,
        kx_pub: m.kx_pub,
        address: m.address,
      })),
    member: (fp: string): MemberRow | null => member.get(fp) ?? null,
    siteKeys: (): SiteKeyRow[] => siteKeys.all(),
    siteKey: (id: string): SiteKeyRow | null => siteKey.get(id) ?? null,
    log: (): LogRecord[] => log.all().map((r) => JSON.parse(r.record) as LogRecord),
    head: (): { seq: number; hash: string } | null => head.get() ?? null,
    parts: (): PartRow[] => parts.all(),
    /** The last sealed file made here, or applied here, for a keychain. */
    sealed: (kind: 'made' | 'applied', keychainId: string) => sealed.get(kind, keychainId) ?? null,
    part: (name: string): PartRow | null => part.get(name) ?? null,
    witness: (fp: string): WitnessRow | null => witness.get(fp) ?? null,
    witnesses: (): WitnessRow[] => witnesses.all(),
    /** The head a peer showed (operational: a restored database must not erase the evidence elsewhere). */
    witnessed(fp: string, seq: number, hash: string, at: string): void {
      putWitness.run(fp, seq, hash, at);
    },
    /** Forget what a removed peer showed: a new membership starts its witness afresh. */
    dropWitness(fp: string): void {
      dropWitness.run(fp);
    },
    mismatch(fp: string, what: string, at: string): void {
      markWitness.run(what, at, fp);
    },
    /** Records a verified request's nonce; false when it was seen before (a replay). */
    recordNonce(fp: string, nonce: string, expiresAtMs: number, nowMs: number): boolean {
      dropNonces.run(nowMs);
      return addNonce.run(fp, nonce, expiresAtMs).changes === 1;
    },
    nonceCount: (): number => countNonces.get()?.n ?? 0,
    /** Members (not the home) holding a licence seat through this keychain. */
    heard(fp: string, at: string): void {
      heard.run(fp, at);
    },
    contact: (): Map<string, string> =>
      new Map(contact.all().map((r) => [r.fingerprint, r.heard_at])),
    projection: projectionOf<KeychainEvents>({
      name: 'keychain',
      tables: [
        'keychain_state',
        'keychain_members',
        'keychain_log',
        'keychain_site_keys',
        'keychain_parts',
        'keychain_sealed',
      ],
      on: {
        'keychain.home_created': (d, e) => {
          putState.run({
            keychain_id: d.keychain_id,
            role: 'home',
            epoch: d.record.epoch,
            home_fp: d.fingerprint,
            label: d.label,
            via: 'genesis',
            since: e.ts,
            carried: '[]',
          });
          putMember.run({
            fingerprint: d.fingerprint,
            label: d.label,
            role: 'home',
            sig_pub: d.sig_pub,
            kx_pub: d.kx_pub,
            address: d.address,
            via: 'genesis',
            added_at: e.ts,
            licensed: 1,
          });
          putLog(d.record);
        },
        'keychain.site_key_created': (d, e) => {
          putSiteKey.run({
            id: d.id,
            label: d.label,
            purpose: d.purpose,
            licence: d.licence ? 1 : 0,
            created_by: e.actor,
            created_at: e.ts,
            expires_at: d.expires_at,
            secret_hash: d.secret_hash,
          });
        },
        'keychain.site_key_revoked': (d, e) => {
          revokeKey.run(e.ts, d.reason, d.id);
        },
        'keychain.site_key_rejected': (d) => {
          if (d.reason === 'wrong_secret') failKey.run(d.id);
        },
        'keychain.site_key_locked': (d, e) => {
          revokeKey.run(e.ts, 'locked', d.id);
        },
        'keychain.site_key_used': (d, e) => {
          useKey.run(e.ts, d.fingerprint, d.id);
        },
        'keychain.member_added': (d, e) => {
          putMember.run({
            fingerprint: d.fingerprint,
            label: d.label,
            role: 'member',
            sig_pub: d.sig_pub,
            kx_pub: d.kx_pub,
            address: d.address,
            via: d.via,
            added_at: e.ts,
            licensed: d.licensed === false ? 0 : 1,
          });
          putLog(d.record);
        },
        'keychain.home_handed_over': (d) => {
          const before = state.get()?.home_fp;
          moveHome.run('member', d.epoch, d.to);
          if (before !== undefined) setRole.run('member', before);
          setRole.run('home', d.to);
          putLog(d.record);
          dropAllParts.run(); // the new home numbers its parts afresh (see home_changed)
        },
        'keychain.home_changed': (d, e) => {
          moveHome.run(d.role, d.epoch, d.home_fp);
          // A new home numbers its parts afresh under its own key: versions of the old one
          // (or of the other side of a fork) would refuse them as rollbacks.
          dropAllParts.run();
          if (d.role === 'home') {
            setSkip.run(JSON.stringify(d.skip));
            // A home carries by its scope; owned copies are a member's notion.
            setOwned.run('[]');
          }
          replaceRoster(
            d.members.map((m) => ({ ...m, role: m.role === 'home' ? 'home' : 'member' })),
            d.records,
            e.ts,
          );
        },
        'keychain.join_approved': (d) => {
          setLicensed.run(d.fingerprint);
        },
        'keychain.enrolled': (d, e) => {
          putState.run({
            keychain_id: d.keychain_id,
            role: 'member',
            epoch: d.epoch,
            home_fp: d.home_fp,
            label: d.label,
            via: d.via,
            since: e.ts,
            carried: JSON.stringify(d.carried),
          });
          replaceRoster(
            d.members.map((m) => ({ ...m, role: m.role === 'home' ? 'home' : 'member' })),
            d.records,
            e.ts,
          );
        },
        'keychain.roster_synced': (d, e) => {
          setEpoch.run(d.epoch);
          setCarried.run(JSON.stringify(d.carried));
          replaceRoster(
            d.members.map((m) => ({ ...m, role: m.role === 'home' ? 'home' : 'member' })),
            d.records,
            e.ts,
          );
        },
        'keychain.scope_changed': (d) => {
          setSkip.run(JSON.stringify(d.skip));
        },
        'keychain.part_owned': (d) => {
          const owned = new Set(JSON.parse(state.get()?.owned ?? '[]') as string[]).add(d.part);
          setOwned.run(JSON.stringify([...owned].sort()));
        },
        'keychain.part_released': (d) => {
          const owned = (JSON.parse(state.get()?.owned ?? '[]') as string[]).filter(
            (p) => p !== d.part,
          );
          setOwned.run(JSON.stringify(owned));
          // The home's version is taken again at the next pull, whatever its number.
          dropPart.run(d.part);
        },
        'keychain.part_published': (d, e) => {
          putPart.run({
            part: d.part,
            version: d.version,
            sha256: d.sha256,
            epoch: d.epoch,
            at: e.ts,
          });
        },
        'keychain.part_synced': (d, e) => {
          putPart.run({
            part: d.part,
            version: d.version,
            sha256: d.sha256,
            epoch: d.epoch,
            at: e.ts,
          });
        },
        'keychain.member_removed': (d, e) => {
          removeMember.run(e.ts, d.fingerprint);
          putLog(d.record);
        },
        'keychain.member_renamed': (d) => {
          renameMember.run(d.label, d.fingerprint);
          putLog(d.record);
        },
        'keychain.left': () => {
          for (const f of forget) f.run();
        },
        'keychain.sealed': (d, e) => {
          putSealed.run('made', d.keychain_id, d.content_version, d.sha256, e.ts);
        },
        'keychain.sealed_file_applied': (d, e) => {
          putSealed.run('applied', d.keychain_id, d.content_version, d.sha256, e.ts);
        },
        'keychain.member_silent': (d) => {
          setHealth.run('silent', d.fingerprint);
        },
        'keychain.member_gone': (d) => {
          setHealth.run('gone', d.fingerprint);
        },
        'keychain.member_back': (d) => {
          setHealth.run('ok', d.fingerprint);
        },
      },
      reserves: [
        'keychain.peer_auth_failed',
        'keychain.join_failed',
        'keychain.part_rejected',
        'keychain.sealed_rejected',
        'keychain.witness_mismatch',
        'keychain.window_opened',
        'keychain.window_closed',
        'keychain.join_requested',
        'keychain.join_started',
        'keychain.join_code_failed',
        'keychain.join_confirmed',
        'keychain.join_cancelled',
        'keychain.handover_offered',
        'keychain.handover_cancelled',
        'keychain.took_over',
        'keychain.takeover_rejected',
        'keychain.home_superseded',
        'keychain.takeover_invalid',
      ],
    }),
  };
}
export type KeychainStore = ReturnType<typeof createKeychainStore>;
