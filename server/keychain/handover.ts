// Handing the home to a member (design/keychain.md §2.7), both installs up. The home offers
// (a code of six random digits is shown on it, never recorded); the member learns of the
// offer at its next pull and its admin types the code there; the member signs its acceptance
// and sends it with the code; the home checks both, appends the two-signature handover
// record at the next epoch and becomes a member of the new home in the same writer job, then
// answers the log. So there is never a moment with two homes: at worst, while the answer is
// on its way, none (the member asks again and gets the same record). Other members learn it
// from the old home at their next pull (home_moved) and follow.
import { randomBytes, randomInt, sign } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import { base32, type DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import {
  acceptText,
  adoptsMembers,
  appendRecord,
  checkLog,
  homeOfLog,
  importSigPub,
  recordHash,
  rosterOfLog,
  forkBetween,
  type LogRecord,
} from './authority-log.js';
import type { DivergentCopies, DivergentCopy } from './divergent.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Identity } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';
import { codeMatches } from './pairing-code.js';
import type { OfferRow } from './pairing.store.js';
import { callPeer } from './peer-client.js';

export const OFFER_MINUTES = 10;

/** An offer as a member sees it in its pull answer. */
export interface Offer {
  readonly offer_id: string;
  readonly from: string;
  readonly to: string;
  readonly epoch: number;
  readonly prev: string;
  readonly expires_at: string;
}

type RosterEntry = {
  fingerprint: string;
  label: string;
  role: string;
  sig_pub: string;
  kx_pub: string;
  address: string | null;
};

/** What the old home answers the new one, and any member that still asks it. */
export interface Moved {
  readonly home_fp: string;
  readonly epoch: number;
  readonly records: LogRecord[];
  readonly members: RosterEntry[];
  readonly skip: string[];
}

interface Deps {
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly identity: Identity;
  /** The new home publishes every carried part again at its epoch. */
  readonly publish: () => Promise<void>;
  /** A home replaced while it ran keeps its copy of the parts first (divergent.ts). */
  readonly divergent: DivergentCopies;
}

/**
 * What follow() answers when this home could not write its divergent copy: it stays the
 * home this round (keychain.divergent_failed says why), which is no sign of an attack.
 */
export const COPY_NOT_WRITTEN = 'the divergent copy of this home’s parts could not be written';

const isOffer = (x: unknown): x is Offer => {
  const o = x as Partial<Offer> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.offer_id === 'string' &&
    typeof o.from === 'string' &&
    typeof o.to === 'string' &&
    typeof o.epoch === 'number' &&
    typeof o.prev === 'string' &&
    typeof o.expires_at === 'string'
  );
};

export function createHandover(deps: Deps) {
  const { store, ledger, writer, clock, identity } = deps;
  const offers = store.pairing;
  const self = identity.fingerprint;
  /** On a member: the offer its home showed at the last pull, for it. */
  let seen: Offer | null = null;
  /** Step-downs whose divergent copy could not be written, already recorded (epoch/home). */
  const copyFailures = new Set<string>();

  const open = (o: OfferRow | null): o is OfferRow =>
    o !== null && o.state === 'open' && Date.parse(o.expires_at) > clock.now();

  function moved(): Moved {
    const st = store.state();
    const log = store.log();
    const home = homeOfLog(log);
    return {
      home_fp: home.home_fp,
      epoch: home.epoch,
      records: log,
      members: store.rosterEntries(),
      skip: st === null ? [] : (JSON.parse(st.skip) as string[]),
    };
  }

  function cancelOpen(reason: string, actor: string): boolean {
    const o = offers.latestOffer();
    if (o === null || o.state !== 'open' || !offers.endOffer(o.offer_id, 'cancelled', reason, null))
      return false;
    ledger.append({
      type: 'keychain.handover_cancelled',
      actor,
      data: { offer_id: o.offer_id, reason },
    });
    return true;
  }

  return {
    /** POST /v1/keychain/handover (home): offer the home to a member. */
    async offer(fp: string, actor: Actor) {
      await writer.transact(() => {
        const st = store.state();
        if (st?.role !== 'home')
          throw new ConflictError('not_home', 'only the home can hand itself over', {
            why: st === null ? 'no keychain' : 'member',
          });
        const m = store.member(fp);
        if (m === null || m.removed_at !== null || m.role !== 'member')
          throw new NotFoundError('not_found', `no member ${fp} in this keychain`, {
            field: 'fingerprint',
          });
        cancelOpen('replaced', actor.name);
        const offerId = `ho_${base32(randomBytes(10)).toLowerCase()}`;
        const expiresAt = new Date(clock.now() + OFFER_MINUTES * 60_000).toISOString();
        offers.putOffer({
          offer_id: offerId,
          to_fp: fp,
          epoch: st.epoch + 1,
          prev: store.head()?.hash ?? '',
          code: String(randomInt(0, 1_000_000)).padStart(6, '0'),
          created_at: clock.nowIso(),
          expires_at: expiresAt,
        });
        ledger.append({
          type: 'keychain.handover_offered',
          actor: actor.name,
          data: { offer_id: offerId, to: fp, epoch: st.epoch + 1, expires_at: expiresAt },
        });
      });
    },

    /** POST /v1/keychain/handover/cancel (home): only while no acceptance was seen. */
    async cancel(actor: Actor) {
      const done = await writer.transact(() => cancelOpen('cancelled', actor.name));
      if (!done)
        throw new ConflictError('no_handover', 'no handover is waiting to be accepted', {
          why: 'none',
        });
    },

    /** The open offer to `fp`, for its pull answer. */
    offerFor(fp: string): Offer | null {
      const o = offers.latestOffer();
      if (!open(o) || o.to_fp !== fp) return null;
      return {
        offer_id: o.offer_id,
        from: self,
        to: o.to_fp,
        epoch: o.epoch,
        prev: o.prev,
        expires_at: o.expires_at,
      };
    },

    /** /peer/handover/accept on the home: the member's signed acceptance with the code. */
    async accepted(fp: string, body: Record<string, unknown> | null): Promise<Moved> {
      const offerId = typeof body?.['offer_id'] === 'string' ? body['offer_id'] : '';
      const code = typeof body?.['code'] === 'string' ? body['code'] : '';
      const acceptSig = typeof body?.['accept_sig'] === 'string' ? body['accept_sig'] : '';
      const mismatch = await writer.transact(() => {
        const o = offers.offer(offerId);
        if (o === null || o.to_fp !== fp)
          throw new NotFoundError('not_found', 'no handover offer for this install', {
            field: 'offer_id',
          });
        // Accepted already: the answer was lost on its way; the same record again.
        if (o.state === 'accepted') return false;
        const st = store.state();
        if (st?.role !== 'home' || !open(o))
          throw new ConflictError('handover_ended', 'the offer is no longer open', {
            why: o.reason ?? o.state,
          });
        if (!codeMatches(code, o.code)) {
          offers.endOffer(o.offer_id, 'cancelled', 'wrong code', null);
          ledger.append({
            type: 'keychain.handover_cancelled',
            actor: `peer:${fp}`,
            data: { offer_id: o.offer_id, reason: 'wrong code' },
          });
          return true;
        }
        if ((store.head()?.hash ?? '') !== o.prev)
          throw new ConflictError('handover_stale', 'the log moved since the offer: offer again', {
            why: 'stale',
          });
        const record = appendRecord(
          store.log().at(-1) ?? null,
          {
            keychain_id: st.keychain_id,
            epoch: o.epoch,
            type: 'handover',
            body: { from: self, to: fp, offer_id: o.offer_id, accept_sig: acceptSig },
          },
          { fp: self, key: identity.key },
          clock.nowIso(),
        );
        // The record must hold for every member: the acceptance is checked as they will.
        const problem = checkLog([...store.log(), record], st.keychain_id);
        if (problem !== null)
          throw new ConflictError('accept_unsigned', `the acceptance does not hold: ${problem}`, {
            why: 'signature',
          });
        offers.endOffer(o.offer_id, 'accepted', null, canonicalJson(record));
        ledger.append({
          type: 'keychain.home_handed_over',
          actor: `peer:${fp}`,
          data: { offer_id: o.offer_id, to: fp, epoch: o.epoch, record },
        });
        return false;
      });
      if (mismatch)
        throw new ConflictError(
          'code_mismatch',
          'the code does not match the one the home shows: the offer is void; offer again',
          { why: 'code' },
        );
      return moved();
    },

    /** On a former home: what a member still asking it is told (home_moved). */
    movedAnswer(): Moved | null {
      const st = store.state();
      const moves = (r: LogRecord) => r.type === 'handover' || r.type === 'takeover';
      if (st?.role !== 'member' || !store.log().some(moves)) return null;
      return moved();
    },

    /** On a member: the offer seen at its last pull (member-sync keeps it here). */
    saw(x: unknown): void {
      seen = isOffer(x) && x.to === self ? x : null;
    },

    /** POST /v1/keychain/handover/accept (member): the code the home shows, typed here. */
    async accept(code: string, pullNow: () => Promise<unknown>, actor: Actor) {
      if (seen === null || Date.parse(seen.expires_at) <= clock.now()) await pullNow();
      const st = store.state();
      const o = seen;
      if (st?.role !== 'member' || o === null)
        throw new ConflictError(
          'no_handover',
          'the home offers no handover to this install (POST /v1/keychain/handover on the home)',
          { why: 'none' },
        );
      const home = store.member(st.home_fp);
      const homeKey = home === null ? null : importSigPub(home.sig_pub);
      if (home?.address == null || homeKey === null)
        throw new ConflictError('home_unreachable', 'the roster holds no address for the home', {
          why: 'address',
        });
      const acceptSig = sign(
        null,
        acceptText({
          keychain_id: st.keychain_id,
          offer_id: o.offer_id,
          from: o.from,
          to: self,
          epoch: o.epoch,
          prev: o.prev,
        }),
        identity.key,
      ).toString('base64url');
      const answer = await callPeer(
        { url: home.address, fingerprint: home.fingerprint, key: homeKey },
        '/v1/keychain/peer/handover/accept',
        { offer_id: o.offer_id, code, accept_sig: acceptSig },
        {
          signer: { fingerprint: self, key: identity.key },
          keychainId: st.keychain_id,
          epoch: st.epoch,
          head: store.head()?.hash ?? '',
          now: clock.now(),
        },
      );
      if (answer.kind !== 'answered')
        throw new ConflictError('home_unreachable', `the home cannot be reached: ${answer.why}`, {
          why: answer.kind,
        });
      const body = answer.body as (Moved & { error?: string; message?: string }) | null;
      if (answer.status !== 200) {
        if (body?.error === 'code_mismatch') seen = null;
        throw new ConflictError(
          body?.error ?? 'handover_refused',
          body?.message ?? `the home answered ${String(answer.status)}`,
          { why: body?.error ?? String(answer.status) },
        );
      }
      const why = await this.follow(body as Moved, actor.name);
      if (why !== null)
        throw new ConflictError('handover_refused', `the home's answer does not hold: ${why}`, {
          why,
        });
      seen = null;
      await deps.publish();
    },

    /**
     * On a member (the new home included): the home moved. Kept only when the log holds,
     * extends ours, and ends with a handover at a higher epoch.
     */
    async follow(m: Moved, actor = 'system'): Promise<string | null> {
      if (!Array.isArray(m.records)) return 'no log';
      // Checked and kept in one writer job: nothing lands between the check and the write.
      return writer.transact(() => {
        const st = store.state();
        if (st === null) return 'not in a keychain';
        const known = store.log();
        // A log that wins a fork of two take-overs at our epoch replaces ours from there.
        const forked = forkBetween(known, m.records);
        const fork = forked !== null && recordHash(forked.theirs) < recordHash(forked.ours);
        const problem =
          checkLog(m.records, st.keychain_id) ??
          (fork ||
          known.every(
            (r, i) => m.records[i] !== undefined && recordHash(m.records[i]) === recordHash(r),
          )
            ? null
            : 'the log does not extend ours');
        if (problem !== null) return problem;
        if (fork && !adoptsMembers(forked.oursOnly, m.records))
          return 'the winning log does not hold the members only this side knows yet';
        const home = homeOfLog(m.records);
        if (home.epoch < st.epoch || (home.epoch === st.epoch && !fork))
          return `the home is at epoch ${String(home.epoch)}, not above ours`;
        // Replaced while it ran (a take-over or a lost fork, not a handover it offered): what
        // it changed meanwhile is kept in a file before the new home's parts replace it, and
        // before anything of the step-down is recorded.
        const replaced =
          st.role === 'home' &&
          home.home_fp !== self &&
          (fork || m.records.slice(known.length).some((r) => r.type === 'takeover'));
        let copy: DivergentCopy | null = null;
        if (replaced) {
          try {
            copy = deps.divergent.save(st, home.epoch, home.home_fp);
          } catch (err) {
            // A full disk, say: stay the home this round rather than lose what changed here;
            // said once per new home, with the error's code and never a path.
            const once = `${String(home.epoch)}/${home.home_fp}`;
            if (!copyFailures.has(once)) {
              copyFailures.add(once);
              ledger.append({
                type: 'keychain.divergent_failed',
                actor,
                data: {
                  epoch: home.epoch,
                  new_home: home.home_fp,
                  error: (err as NodeJS.ErrnoException).code ?? 'write_failed',
                },
              });
            }
            return COPY_NOT_WRITTEN;
          }
        }
        if (fork) {
          const loser = forked.ours.body['to'];
          ledger.append({
            type: 'keychain.fork_resolved',
            actor,
            data: {
              epoch: home.epoch,
              winner: home.home_fp,
              winner_hash: recordHash(forked.theirs),
              loser: typeof loser === 'string' ? loser : '',
              loser_hash: recordHash(forked.ours),
            },
          });
        }
        if (copy !== null)
          ledger.append({
            type: 'keychain.divergent_saved',
            actor,
            data: { epoch: home.epoch, new_home: home.home_fp, ...copy },
          });
        // Keys and roles from the checked log; only addresses the log lacks from the answer
        // and from what we knew (the home's own entry carries none).
        const said = new Map(
          (Array.isArray(m.members) ? m.members : []).map((x) => [x.fingerprint, x.address]),
        );
        const members = rosterOfLog(m.records).map((x) => ({
          ...x,
          address:
            x.address ??
            store.member(x.fingerprint)?.address ??
            (typeof said.get(x.fingerprint) === 'string'
              ? (said.get(x.fingerprint) ?? null)
              : null),
        }));
        ledger.append({
          type: 'keychain.home_changed',
          actor,
          data: {
            home_fp: home.home_fp,
            epoch: home.epoch,
            role: home.home_fp === self ? 'home' : 'member',
            members,
            records: m.records,
            skip: Array.isArray(m.skip) ? m.skip.filter((p) => typeof p === 'string') : [],
          },
        });
        store.heard(home.home_fp, clock.nowIso());
        return null;
      });
    },

    /** What GET /v1/keychain shows: the offer made here (with its code), or the one seen. */
    view() {
      const st = store.state();
      if (st?.role === 'home') {
        const o = offers.latestOffer();
        if (o === null) return null;
        return {
          offer_id: o.offer_id,
          to: o.to_fp,
          state: o.state === 'open' && !open(o) ? 'expired' : o.state,
          reason: o.reason,
          code: open(o) ? o.code : null,
          expires_at: o.expires_at,
        };
      }
      if (st?.role === 'member' && seen !== null)
        return {
          offer_id: seen.offer_id,
          to: seen.to,
          state: Date.parse(seen.expires_at) > clock.now() ? 'offered' : 'expired',
          reason: null,
          code: null,
          expires_at: seen.expires_at,
        };
      return null;
    },
  };
}
export type Handover = ReturnType<typeof createHandover>;
