// The keychain on this install (design/keychain.md): becoming a home, the site keys a home
// issues, what GET /v1/keychain shows, and the home's side of a new site's enrolment. The
// joining side is join.ts; peer authentication is peer.routes.ts with crypto/.
import { randomBytes, type KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import { base32, type DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { canonicalJson } from '../shared/canonical-json.js';
import {
  ConflictError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  UnauthenticatedError,
} from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { appendRecord, recordHash, type LogRecord } from './authority-log.js';
import type { SealedBox } from './crypto/sealed-box.js';
import { homeCarries, KEYCHAIN_PARTS, type CarriedPart, type createPartsHome } from './parts.js';
export { KEYCHAIN_PARTS } from './parts.js';
import { keychainView } from './keychain-view.js';
import { isShowing, showing, witness } from './witness.js';
import type { KeychainEvents } from './keychain.events.js';
import { SITE_KEY_MAX_FAILURES, type KeychainStore, type MemberRow } from './keychain.store.js';
import { newSiteKey, secretMatches, secretHash } from './site-key.js';
import { sign } from 'node:crypto';

/** Site keys live at most a week (kubeadm's lesson: never "no expiry"). */
export const SITE_KEY_HOURS = { min: 1, max: 168 } as const;

export interface Identity {
  /** The install key fingerprint: what peers pin and people compare in full. */
  readonly fingerprint: string;
  /** The Ed25519 install key (private): signs peer requests and log records. */
  readonly key: KeyObject;
  /** Its public half as rosters carry it (SPKI DER, base64url). */
  readonly sigPub: string;
  /** The key-agreement public key secrets are sealed to (x25519:… or p256:…). */
  readonly kxPub: string;
}

interface Deps {
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly identity: Identity;
  /** Why the licence does not allow a keychain, or null when it does. */
  readonly licenceRefuses: () => string | null;
  /** The home's carried parts (parts.ts). */
  readonly parts: ReturnType<typeof createPartsHome>;
  /** This install's ledger head and its hash at a seq: what witnesses are shown. */
  readonly ledgerHead: () => { seq: number; hash: Buffer | null };
  readonly hashAt: (seq: number) => Buffer | null;
  /** Whether the home would vouch for this member's licence seat now (licence-seat.ts). */
  readonly seatOffered?: (fp: string) => boolean;
  /** A member removed (or gone by itself): the licence seat the home vouched it frees. */
  readonly released?: (sigPub: string, actor: string) => Promise<void>;
}

/** What a new site sends inside its sealed enrol body. */
export interface EnrolRequest {
  readonly key_id: string;
  readonly secret: string;
  readonly sig_pub: string;
  readonly kx_pub: string;
  readonly label: string;
  readonly address: string | null;
}

/** What the home answers a member (enrol, pull): the roster and the whole authority log. */
export interface Roster {
  readonly keychain_id: string;
  readonly epoch: number;
  readonly head: string;
  readonly home_fp: string;
  readonly members: {
    fingerprint: string;
    label: string;
    role: string;
    sig_pub: string;
    kx_pub: string;
    address: string | null;
  }[];
  readonly records: LogRecord[];
  /** The parts the home carries, their signed manifests, and their documents sealed to the member. */
  readonly carried: string[];
  readonly parts: CarriedPart[];
  readonly sealed_parts: SealedBox | null;
}

/** The signed answer to /peer/hello: who the home is, for a new site to check its pin. */
export interface Hello {
  readonly keychain_id: string;
  readonly epoch: number;
  readonly head: string;
  readonly home_fp: string;
  readonly home_sig_pub: string;
  readonly home_kx_pub: string;
  readonly sig: string;
}

export const HELLO_TAG = 'svc-keychain/hello/v1\n';

export function helloText(h: Omit<Hello, 'sig'>): Buffer {
  return Buffer.from(HELLO_TAG + canonicalJson(h), 'utf8');
}

export function createKeychainService({
  store,
  ledger,
  writer,
  clock,
  identity,
  licenceRefuses,
  parts,
  ledgerHead,
  hashAt,
  seatOffered,
  released,
}: Deps) {
  const self = identity.fingerprint;

  function requireLicence(): void {
    const why = licenceRefuses();
    if (why !== null)
      throw new ConflictError('licence_lacks_keychain', `the keychain is not available: ${why}`, {
        why,
      });
  }

  function requireHome(): NonNullable<ReturnType<KeychainStore['state']>> {
    const st = store.state();
    if (st === null)
      throw new ConflictError(
        'not_in_keychain',
        'this install is in no keychain: make it the home first (POST /v1/keychain/home)',
        {
          why: 'no keychain',
        },
      );
    if (st.role !== 'home')
      throw new ConflictError('not_home', `only the home can do this; the home is ${st.home_fp}`, {
        why: 'member',
        home_fp: st.home_fp,
      });
    return st;
  }

  function headRecord(): LogRecord | null {
    const log = store.log();
    return log[log.length - 1] ?? null;
  }

  /** The next authority-log record of this home's keychain, signed by it. */
  function nextRecord(
    st: { keychain_id: string; epoch: number },
    type: string,
    body: Record<string, unknown>,
  ): LogRecord {
    return appendRecord(
      headRecord(),
      { keychain_id: st.keychain_id, epoch: st.epoch, type, body },
      { fp: self, key: identity.key },
      clock.nowIso(),
    );
  }

  /** A roster entry that is there (not removed), or 404 naming the fingerprint. */
  function presentMember(fp: string): MemberRow {
    const m = store.member(fp);
    if (m === null || m.removed_at !== null)
      throw new NotFoundError('not_found', `no member ${fp} in this keychain`, {
        field: 'fingerprint',
      });
    return m;
  }

  /**
   * Adds an install to the roster and the log (inside the caller's writer job): enrolled with
   * a site key, or paired by code. `licensed` is whether it holds a licence seat already.
   */
  function admit(
    st: { keychain_id: string; epoch: number },
    fp: string,
    m: { sig_pub: string; kx_pub: string; label: string; address: string | null },
    via: string,
    licensed: boolean,
  ): void {
    const record = nextRecord(st, 'member_add', {
      fp,
      sig_pub: m.sig_pub,
      kx_pub: m.kx_pub,
      label: m.label,
      address: m.address,
      via,
    });
    ledger.append({
      type: 'keychain.member_added',
      actor: `peer:${fp}`,
      data: {
        fingerprint: fp,
        label: m.label,
        sig_pub: m.sig_pub,
        kx_pub: m.kx_pub,
        address: m.address,
        via,
        record,
        licensed,
      },
    });
    store.heard(fp, clock.nowIso());
  }

  /** The roster, with the parts sealed to `forFp` (none for a new member: its first pull brings them). */
  function roster(forFp: string | null): Roster {
    const st = requireHome();
    const carriedParts = forFp === null ? { parts: [], sealed_parts: null } : parts.list(st, forFp);
    return {
      keychain_id: st.keychain_id,
      epoch: st.epoch,
      head: store.head()?.hash ?? '',
      home_fp: st.home_fp,
      members: store.rosterEntries(),
      records: store.log(),
      carried: homeCarries(st),
      ...carriedParts,
    };
  }

  return {
    /** GET /v1/keychain. */
    view: () => keychainView(store, clock.now(), self),

    /** POST /v1/keychain/home: this install becomes the home of a new keychain (epoch 1). */
    async makeHome(label: string, actor: Actor) {
      requireLicence();
      await writer.transact(() => {
        const st = store.state();
        if (st !== null)
          throw new ConflictError(
            'already_in_keychain',
            `this install is already the ${st.role} of keychain ${st.keychain_id}`,
            {
              why: st.role,
            },
          );
        const keychainId = `kc_${base32(randomBytes(16)).toLowerCase()}`;
        const record = appendRecord(
          null,
          {
            keychain_id: keychainId,
            epoch: 1,
            type: 'genesis',
            body: { home_fp: self, sig_pub: identity.sigPub, kx_pub: identity.kxPub, label },
          },
          { fp: self, key: identity.key },
          clock.nowIso(),
        );
        ledger.append({
          type: 'keychain.home_created',
          actor: actor.name,
          data: {
            keychain_id: keychainId,
            fingerprint: self,
            label,
            sig_pub: identity.sigPub,
            kx_pub: identity.kxPub,
            address: null,
            record,
          },
        });
      });
      return this.view();
    },

    /** POST /v1/keychain/site-keys: one key per label, each shown once. */
    async createSiteKeys(
      input: { labels: string[]; purpose?: string; licence?: boolean; hours?: number },
      actor: Actor,
    ) {
      const hours = input.hours ?? 24;
      if (!Number.isInteger(hours) || hours < SITE_KEY_HOURS.min || hours > SITE_KEY_HOURS.max)
        throw new InvalidInputError(
          'invalid_input',
          `hours must be a whole number from ${String(SITE_KEY_HOURS.min)} to ${String(SITE_KEY_HOURS.max)}`,
          { field: 'hours' },
        );
      requireLicence();
      return writer.transact(() => {
        const st = requireHome();
        const expiresAt = new Date(clock.now() + hours * 3_600_000).toISOString();
        return {
          keys: input.labels.map((label) => {
            const key = newSiteKey(st.home_fp);
            ledger.append({
              type: 'keychain.site_key_created',
              actor: actor.name,
              data: {
                id: key.id,
                label,
                purpose: input.purpose ?? 'join',
                licence: input.licence ?? false,
                hours,
                expires_at: expiresAt,
                secret_hash: secretHash(key.secret),
              },
            });
            return { id: key.id, label, key: key.text, expires_at: expiresAt };
          }),
        };
      });
    },

    /** POST /v1/keychain/site-keys/revoke. */
    async revokeSiteKey(id: string, actor: Actor) {
      await writer.transact(() => {
        requireHome();
        const k = store.siteKey(id);
        if (k === null) throw new NotFoundError('not_found', `no site key ${id}`, { field: 'id' });
        if (k.used_at !== null)
          throw new ConflictError(
            'site_key_used',
            `site key ${id} was already used by ${k.used_by_fp ?? 'a member'}; remove the member instead`,
            {
              why: 'used',
            },
          );
        if (k.revoked_at !== null) return;
        ledger.append({
          type: 'keychain.site_key_revoked',
          actor: actor.name,
          data: { id, reason: 'revoked' },
        });
      });
      return this.view();
    },

    /** The signed answer to /peer/hello (home only). */
    hello(): Hello {
      const st = requireHome();
      const body = {
        keychain_id: st.keychain_id,
        epoch: st.epoch,
        head: store.head()?.hash ?? '',
        home_fp: self,
        home_sig_pub: identity.sigPub,
        home_kx_pub: identity.kxPub,
      };
      return { ...body, sig: sign(null, helloText(body), identity.key).toString('base64url') };
    },

    /**
     * The home's side of an enrolment: in one writer job the site key is checked and
     * consumed (or found used by this same install: the answer may have been lost, so it
     * succeeds again) and the member is added to the roster and the log.
     */
    async enrol(fp: string, req: EnrolRequest, address: string | null): Promise<Roster> {
      // Refusals are recorded (wrong secrets count toward the lock), so they commit too.
      const refusal = await writer.transact(
        (): ConflictError | UnauthenticatedError | ForbiddenError | null => {
          const st = requireHome();
          const k = store.siteKey(req.key_id);
          const reject = (reason: string) =>
            ledger.append({
              type: 'keychain.site_key_rejected',
              actor: `peer:${fp}`,
              data: { id: req.key_id, reason, fingerprint: fp, address },
            });
          // An unknown key id is not recorded here (a stranger could fill the ledger with
          // made-up ids): the route counts it with the other refused calls, per address.
          if (k === null)
            return new UnauthenticatedError(
              'site_key_unknown',
              'the site key is not one this home issued',
            );
          const known = store.member(fp);
          if (
            k.used_at !== null &&
            k.used_by_fp === fp &&
            secretMatches(req.secret, k.secret_hash)
          ) {
            // A retry by the install that used it gets the same success again, unless it was
            // removed or left since: then it is told so, and only a new key brings it back.
            if (known?.removed_at != null)
              return new ForbiddenError(
                'member_removed',
                'this install was removed from the keychain: enrol again with a new site key',
              );
            return null;
          }
          if (k.used_at !== null) {
            reject('used');
            return new ConflictError('site_key_used', `site key ${k.id} was already used`, {
              why: 'used',
            });
          }
          if (k.revoked_at !== null) {
            reject(k.revoked_reason === 'locked' ? 'locked' : 'revoked');
            return new ConflictError('site_key_revoked', `site key ${k.id} was revoked`, {
              why: k.revoked_reason ?? 'revoked',
            });
          }
          if (Date.parse(k.expires_at) <= clock.now()) {
            reject('expired');
            return new ConflictError(
              'site_key_expired',
              `site key ${k.id} expired at ${k.expires_at}`,
              { why: 'expired' },
            );
          }
          if (!secretMatches(req.secret, k.secret_hash)) {
            reject('wrong_secret');
            if (k.failed_attempts + 1 >= SITE_KEY_MAX_FAILURES)
              ledger.append({
                type: 'keychain.site_key_locked',
                actor: 'system',
                data: { id: k.id },
              });
            return new UnauthenticatedError('site_key_rejected', 'the site key secret is wrong');
          }
          if (known !== null && known.removed_at === null)
            return new ConflictError('already_member', `${fp} is already in this keychain`, {
              why: 'member',
            });
          ledger.append({
            type: 'keychain.site_key_used',
            actor: `peer:${fp}`,
            data: { id: k.id, fingerprint: fp },
          });
          admit(st, fp, { ...req, address }, `site_key:${k.id}`, k.licence === 1);
          return null;
        },
      );
      if (refusal !== null) throw refusal;
      return roster(null);
    },

    /**
     * A member's pull: it is heard (health) and witnessed (its ledger head), and gets the
     * roster, the log, the parts, and our own head for it to witness.
     */
    async pull(
      fp: string,
      body: unknown,
    ): Promise<Roster & { witness?: unknown; licence_seat: boolean }> {
      const asked = body as { witness?: unknown; home_at?: unknown } | null;
      const shown = isShowing(asked?.witness) ? asked.witness : null;
      await writer.transact(() => {
        store.heard(fp, clock.nowIso());
        if (shown !== null) witness({ store, ledger, now: clock.nowIso() }, fp, shown);
      });
      await parts.publish();
      const homeAt =
        typeof asked?.home_at === 'number' && Number.isInteger(asked.home_at)
          ? asked.home_at
          : null;
      return {
        ...roster(fp),
        witness: {
          you: shown === null ? null : { seq: store.witness(fp)?.seq ?? shown.head.seq },
          home: showing({ head: ledgerHead }, hashAt, homeAt),
        },
        licence_seat: seatOffered?.(fp) ?? false,
      };
    },

    /** POST /v1/keychain/members/remove (home): a signed tombstone; the install gets 403 from now on. */
    async removeMember(fp: string, actor: Actor, reason = 'removed') {
      const removed = await writer.transact(() => {
        const st = requireHome();
        const m = presentMember(fp);
        if (m.role === 'home')
          throw new ConflictError(
            'cannot_remove_home',
            'the home cannot remove itself: hand over first',
            { why: 'home' },
          );
        const record = nextRecord(st, 'member_remove', { fp, reason });
        store.dropWitness(fp);
        ledger.append({
          type: 'keychain.member_removed',
          actor: actor.name,
          data: { fingerprint: fp, reason, record },
        });
        return m;
      });
      await released?.(removed.sig_pub, actor.name);
      return this.view();
    },

    /** POST /v1/keychain/rename (home): a member's label, or the home's own without a fingerprint. */
    async rename(label: string, fp: string | null, actor: Actor) {
      await writer.transact(() => {
        const st = requireHome();
        const target = fp ?? self;
        presentMember(target);
        const record = nextRecord(st, 'rename', { fp: target, label });
        ledger.append({
          type: 'keychain.member_renamed',
          actor: actor.name,
          data: { fingerprint: target, label, record },
        });
      });
      return this.view();
    },

    /** On a member: it is out of the keychain (it left, or its home removed it). */
    async forget(reason: string, homeInformed: boolean) {
      await writer.transact(() => {
        const st = store.state();
        if (st === null) return;
        if (st.role === 'home')
          throw new ConflictError(
            'home_cannot_leave',
            'the home cannot leave its keychain: hand it over to a member first',
            {
              why: 'home',
            },
          );
        ledger.append({
          type: 'keychain.left',
          actor: 'system',
          data: { keychain_id: st.keychain_id, reason, home_informed: homeInformed },
        });
      });
      return this.view();
    },

    /** POST /v1/keychain/scope (home): the parts it does not carry to its members. */
    async setScope(skip: readonly string[], actor: Actor) {
      const unknown = skip.filter((p) => !(KEYCHAIN_PARTS as readonly string[]).includes(p));
      if (unknown.length > 0)
        throw new InvalidInputError(
          'invalid_input',
          `skip names parts that do not exist: ${unknown.join(', ')}; parts are ${KEYCHAIN_PARTS.join(', ')}`,
          {
            field: 'skip',
          },
        );
      await writer.transact(() => {
        requireHome();
        ledger.append({
          type: 'keychain.scope_changed',
          actor: actor.name,
          data: { skip: [...new Set(skip)].sort() },
        });
      });
      return this.view();
    },

    /** POST /v1/keychain/own (member): keep its own copy of a part, or take the home's again. */
    async setOwn(part: string, own: boolean, actor: Actor) {
      if (!(KEYCHAIN_PARTS as readonly string[]).includes(part))
        throw new InvalidInputError(
          'invalid_input',
          `part must be one of ${KEYCHAIN_PARTS.join(', ')}`,
          { field: 'part' },
        );
      await writer.transact(() => {
        const st = store.state();
        if (st?.role !== 'member')
          throw new ConflictError(
            'not_member',
            'only a member keeps its own copy of a part (the home owns them all)',
            {
              why: st === null ? 'no keychain' : 'home',
            },
          );
        const owned = (JSON.parse(st.owned) as string[]).includes(part);
        if (owned === own) return;
        ledger.append({
          type: own ? 'keychain.part_owned' : 'keychain.part_released',
          actor: actor.name,
          data: { part },
        });
      });
      return this.view();
    },

    /** Adds a paired install (pairing.ts, inside its writer job). */
    admit: (fp: string, m: Parameters<typeof admit>[2], via: string, licensed: boolean) => {
      admit(requireHome(), fp, m, via, licensed);
    },
    /** What a new member is answered once it is in: the roster, the log and the parts. */
    rosterForNewMember(): Roster {
      return roster(null);
    },
    requireHome,

    /** The hash a member's log head must have to be in step with ours. */
    headHash: (): string | null => {
      const h = headRecord();
      return h === null ? null : recordHash(h);
    },
  };
}
export type KeychainService = ReturnType<typeof createKeychainService>;
