// The events the keychain appends (design/keychain.md §2.11). Every keychain.* type is a
// security event for syslog. None carries a secret, a code or a passphrase: a site key's
// secret is kept only as its SHA-256 (the key itself is shown once, never stored).
import { Type } from 'typebox';
import type { EventsOf } from '../ledger/index.js';

/** An authority-log record as it was signed (authority-log.ts), kept whole for replays. */
const LogRecord = Type.Object({
  v: Type.Literal(1),
  keychain_id: Type.String(),
  epoch: Type.Integer({ minimum: 1 }),
  seq: Type.Integer({ minimum: 1 }),
  prev: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  body: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
  sigs: Type.Array(Type.Object({ fp: Type.String(), sig: Type.String() })),
});

const Member = {
  fingerprint: Type.String(),
  label: Type.String(),
  sig_pub: Type.String({ description: 'Ed25519 public key, SPKI DER base64url' }),
  kx_pub: Type.String({ description: 'key-agreement public key (x25519:… or p256:…)' }),
  address: Type.Union([Type.String(), Type.Null()]),
};

export const keychainEvents = {
  /** This install made itself the home of a new keychain (the log's genesis). */
  'keychain.home_created': Type.Object({
    keychain_id: Type.String(),
    ...Member,
    record: LogRecord,
  }),
  'keychain.site_key_created': Type.Object({
    id: Type.String(),
    label: Type.String(),
    purpose: Type.String(),
    licence: Type.Boolean(),
    hours: Type.Integer(),
    expires_at: Type.String(),
    secret_hash: Type.String({ description: 'SHA-256 of skc1 ‖ secret, hex' }),
  }),
  'keychain.site_key_revoked': Type.Object({
    id: Type.String(),
    reason: Type.String(),
  }),
  /** A wrong secret, an expired, revoked or used key: the id, never the secret. */
  'keychain.site_key_rejected': Type.Object({
    id: Type.String(),
    reason: Type.String(),
    fingerprint: Type.String(),
    address: Type.Union([Type.String(), Type.Null()]),
  }),
  /** Five wrong secrets: the key no longer works. */
  'keychain.site_key_locked': Type.Object({ id: Type.String() }),
  'keychain.site_key_used': Type.Object({ id: Type.String(), fingerprint: Type.String() }),
  /** On the home: a member joined the roster. */
  'keychain.member_added': Type.Object({
    ...Member,
    via: Type.String(),
    record: LogRecord,
    /** Whether it holds a licence seat (absent: yes); one paired by code waits for approval. */
    licensed: Type.Optional(Type.Boolean()),
  }),
  /** On the home: pairing by code open for 10 minutes (design §2.4). */
  'keychain.window_opened': Type.Object({ window_id: Type.String(), expires_at: Type.String() }),
  /** On the home: no more join requests in this window (three wrong codes). */
  'keychain.window_closed': Type.Object({ window_id: Type.String(), reason: Type.String() }),
  /** On the home: an install asked to join; the code both sides show comes from this request. */
  'keychain.join_requested': Type.Object({
    request_id: Type.String(),
    window_id: Type.String(),
    fingerprint: Type.String(),
    label: Type.String(),
    address: Type.Union([Type.String(), Type.Null()]),
  }),
  /** On the joining install: it asked a home to pair; the home's fingerprint is compared by people. */
  'keychain.join_started': Type.Object({
    request_id: Type.String(),
    home_fp: Type.String(),
    home_label: Type.String(),
    address: Type.String(),
  }),
  /** A code typed on one side did not match: the request ends (one guess per request). */
  'keychain.join_code_failed': Type.Object({
    request_id: Type.String(),
    side: Type.String({ description: 'home or joiner: where the wrong code was typed' }),
    fingerprint: Type.String({ description: 'the other side' }),
  }),
  'keychain.join_confirmed': Type.Object({
    request_id: Type.String(),
    side: Type.String(),
    fingerprint: Type.String(),
  }),
  /** Cancelled on the joining install, or ended by the other side or by expiry. */
  'keychain.join_cancelled': Type.Object({
    request_id: Type.String(),
    side: Type.String(),
    reason: Type.String(),
  }),
  /** On the home: the home offered to a member (the code is shown there, never recorded). */
  'keychain.handover_offered': Type.Object({
    offer_id: Type.String(),
    to: Type.String(),
    epoch: Type.Integer(),
    expires_at: Type.String(),
  }),
  /** On the home: an offer withdrawn, voided by a wrong code, or replaced. */
  'keychain.handover_cancelled': Type.Object({ offer_id: Type.String(), reason: Type.String() }),
  /** On the old home: the member accepted; this install is now a member of it. */
  'keychain.home_handed_over': Type.Object({
    offer_id: Type.String(),
    to: Type.String(),
    epoch: Type.Integer(),
    record: LogRecord,
  }),
  /** On the new home and on every member following it: the home moved (handover). */
  'keychain.home_changed': Type.Object({
    home_fp: Type.String(),
    epoch: Type.Integer(),
    role: Type.Union([Type.Literal('home'), Type.Literal('member')]),
    members: Type.Array(Type.Object({ ...Member, role: Type.String() })),
    records: Type.Array(LogRecord),
    /** On the new home: the parts the old home did not carry. */
    skip: Type.Array(Type.String()),
  }),
  /** On the member that took over as home (its owner asked; `force` when no member confirmed). */
  'keychain.took_over': Type.Object({
    from: Type.String(),
    epoch: Type.Integer(),
    accepted: Type.Integer({ description: 'members that accepted the claim' }),
    force: Type.Boolean(),
    record: LogRecord,
  }),
  /** A take-over refused: by a member that heard the home lately, or not confirmed by any. */
  'keychain.takeover_rejected': Type.Object({
    claimant: Type.String(),
    reason: Type.String(),
    by: Type.Union([Type.String(), Type.Null()]),
  }),
  /** On a returning home: a valid take-over of it was shown; it is a member now. */
  'keychain.home_superseded': Type.Object({
    by: Type.String(),
    epoch: Type.Integer(),
    told_by: Type.String(),
  }),
  /**
   * On a home replaced while it ran (a take-over, or a fork it lost): its copy of every part
   * it carried was written to `file` (relative to the data folder, owner-only) before the new
   * home's parts replace them. Appended before the home_changed it precedes.
   */
  'keychain.divergent_saved': Type.Object({
    epoch: Type.Integer({ description: 'the new home’s epoch' }),
    new_home: Type.String(),
    file: Type.String(),
    parts: Type.Array(Type.String()),
  }),
  /**
   * On a home being replaced: its divergent copy could not be written (a full disk, say), so
   * it stays the home until it can. Recorded once per new home; `error` is the system's code.
   */
  'keychain.divergent_failed': Type.Object({
    epoch: Type.Integer({ description: 'the new home’s epoch' }),
    new_home: Type.String(),
    error: Type.String(),
  }),
  /**
   * Two take-overs at the same epoch (a partition in three): the record with the lower hash
   * won here, and this install follows its home. Appended before the home_changed it causes.
   */
  'keychain.fork_resolved': Type.Object({
    epoch: Type.Integer(),
    winner: Type.String({ description: 'the home whose take-over won' }),
    winner_hash: Type.String(),
    loser: Type.String({ description: 'the home whose take-over lost' }),
    loser_hash: Type.String(),
  }),
  /** On a returning home: a take-over that does not hold was shown (possible attack). */
  'keychain.takeover_invalid': Type.Object({ told_by: Type.String(), why: Type.String() }),
  /** On the home: a paired member given a licence seat (joins/approve). */
  'keychain.join_approved': Type.Object({ request: Type.String(), fingerprint: Type.String() }),
  /** On the new site: it enrolled with the home and pins what the home answered. */
  'keychain.enrolled': Type.Object({
    keychain_id: Type.String(),
    home_fp: Type.String(),
    epoch: Type.Integer(),
    via: Type.String(),
    label: Type.String(),
    carried: Type.Array(Type.String()),
    members: Type.Array(Type.Object({ ...Member, role: Type.String() })),
    records: Type.Array(LogRecord),
  }),
  /** On a member: the roster and log as the home answered a pull, when they changed. */
  'keychain.roster_synced': Type.Object({
    epoch: Type.Integer(),
    carried: Type.Array(Type.String()),
    members: Type.Array(Type.Object({ ...Member, role: Type.String() })),
    records: Type.Array(LogRecord),
  }),
  /** On the home: the parts it does not carry (POST /v1/keychain/scope). */
  'keychain.scope_changed': Type.Object({ skip: Type.Array(Type.String()) }),
  /** On a member: it keeps its own copy of a part (own), or takes the home's again (released). */
  'keychain.part_owned': Type.Object({ part: Type.String() }),
  'keychain.part_released': Type.Object({ part: Type.String() }),
  /** On the home: a carried part changed, and members will get this version. */
  'keychain.part_published': Type.Object({
    part: Type.String(),
    version: Type.Integer({ minimum: 1 }),
    sha256: Type.String(),
    epoch: Type.Integer(),
  }),
  /** On a member: a carried part applied (from → to version). */
  'keychain.part_synced': Type.Object({
    part: Type.String(),
    from_version: Type.Integer(),
    version: Type.Integer(),
    sha256: Type.String({ description: 'the keyed digest of the document (HMAC-SHA256)' }),
    epoch: Type.Integer(),
    replaced: Type.Optional(
      Type.Object(
        { seq: Type.Integer(), actor: Type.String() },
        {
          description:
            'the event that made the copy this replaced, when someone here made it (not a home): that copy is kept there',
        },
      ),
    ),
  }),
  /** On a member: a carried part refused (bad_sig, hash, rollback, stale_epoch, or why it does not apply here). */
  'keychain.part_rejected': Type.Object({
    part: Type.String(),
    version: Type.Integer(),
    reason: Type.String(),
  }),
  /** On the home: a member removed (by an admin, or because it left). */
  'keychain.member_removed': Type.Object({
    fingerprint: Type.String(),
    reason: Type.String(),
    record: LogRecord,
  }),
  'keychain.member_renamed': Type.Object({
    fingerprint: Type.String(),
    label: Type.String(),
    record: LogRecord,
  }),
  /** On a member: it is no longer in the keychain (it left, or the home removed it). */
  'keychain.left': Type.Object({
    keychain_id: Type.String(),
    reason: Type.String(),
    home_informed: Type.Boolean(),
  }),
  /** A sealed file made here (never its passphrase or content). */
  'keychain.sealed': Type.Object({
    keychain_id: Type.String(),
    content_version: Type.Integer(),
    sha256: Type.String({ description: 'SHA-256 of the file' }),
    kdf: Type.String(),
    parts: Type.Array(Type.String()),
  }),
  /** A sealed file applied here: the parts it set, and those it left (carried by a home). */
  'keychain.sealed_file_applied': Type.Object({
    keychain_id: Type.String(),
    content_version: Type.Integer(),
    sha256: Type.String(),
    source_fp: Type.String(),
    applied: Type.Array(Type.String()),
    left: Type.Array(Type.String()),
    via: Type.String({ description: 'api or SVC_KEYCHAIN_FILE' }),
  }),
  'keychain.sealed_rejected': Type.Object({
    reason: Type.String(),
    via: Type.String(),
  }),
  /** A peer's ledger went back, or was rewritten, against what it showed us before. */
  'keychain.witness_mismatch': Type.Object({
    fingerprint: Type.String(),
    kind: Type.Union([Type.Literal('rolled_back'), Type.Literal('rewritten')]),
    witnessed: Type.Object({ seq: Type.Integer(), hash: Type.String() }),
    claimed: Type.Object({ seq: Type.Integer(), hash: Type.String() }),
  }),
  'keychain.member_silent': Type.Object({ fingerprint: Type.String(), quiet_s: Type.Integer() }),
  'keychain.member_back': Type.Object({ fingerprint: Type.String(), quiet_s: Type.Integer() }),
  'keychain.member_gone': Type.Object({ fingerprint: Type.String(), quiet_s: Type.Integer() }),
  /** A refused peer request, at most one per address and code every 5 minutes. */
  'keychain.peer_auth_failed': Type.Object({
    code: Type.String(),
    address: Type.String(),
    path: Type.String(),
    keyid: Type.Union([Type.String(), Type.Null()]),
  }),
  /** A joining install stopped for good: the home it reached is not the one its key pins. */
  'keychain.join_failed': Type.Object({
    reason: Type.String(),
    address: Type.String(),
  }),
} as const;
export type KeychainEvents = EventsOf<typeof keychainEvents>;

export const KEYCHAIN_HOME_CREATED = 'keychain.home_created';
export const KEYCHAIN_SITE_KEY_CREATED = 'keychain.site_key_created';
export const KEYCHAIN_SITE_KEY_REVOKED = 'keychain.site_key_revoked';
export const KEYCHAIN_SITE_KEY_REJECTED = 'keychain.site_key_rejected';
export const KEYCHAIN_SITE_KEY_LOCKED = 'keychain.site_key_locked';
export const KEYCHAIN_SITE_KEY_USED = 'keychain.site_key_used';
export const KEYCHAIN_MEMBER_ADDED = 'keychain.member_added';
export const KEYCHAIN_ENROLLED = 'keychain.enrolled';
export const KEYCHAIN_ROSTER_SYNCED = 'keychain.roster_synced';
