// Pairing by code, the home's side (design/keychain.md §2.4): an admin opens a 10-minute
// window; an install asks to join (its keys and label, self-signed); the home commits to its
// nonce, learns the joiner's, then reveals its own; both sides show the same six digits; an
// admin types the joiner's code here and the joiner's admin types ours there. One wrong code
// ends the request, three close the window; both confirmations add the member, which holds no
// licence seat until joins/approve.
import { randomBytes } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import { base32, type DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Identity, KeychainService, Roster } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';
import { codeMatches, commitment, newNonce, pairingCode } from './pairing-code.js';
import type { PairingRow, PairingStore } from './pairing.store.js';

export const WINDOW_MINUTES = 10;
/** At most this many requests waiting in one window (design §2.4). */
export const WINDOW_MAX_OPEN = 5;
/**
 * At most this many requests in one window, ended ones included: someone between two
 * installs who learnt the joiner's code cannot ask again and again (cancelling each) until
 * the home shows the same digits.
 */
export const WINDOW_MAX_REQUESTS = 10;
/** Requests ended by a wrong code before the window closes. */
export const WINDOW_MAX_FAILURES = 3;

/** What a key pair is, for the code: both public keys of one install. */
export const pubOf = (sigPub: string, kxPub: string): string => `${sigPub}|${kxPub}`;

export interface Joiner {
  readonly fingerprint: string;
  readonly sig_pub: string;
  readonly kx_pub: string;
  readonly label: string;
  readonly address: string | null;
}

/** Where a request stands for the joiner asking (join/status, join/confirm). */
export type JoinStatus =
  | { readonly state: 'added'; readonly roster: Roster }
  | { readonly state: 'open'; readonly home_confirmed: boolean; readonly joiner_confirmed: boolean }
  | { readonly state: 'failed' | 'cancelled' | 'expired'; readonly reason: string };

interface Deps {
  readonly store: KeychainStore;
  readonly pairing: PairingStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly identity: Identity;
  readonly keychain: Pick<KeychainService, 'admit' | 'rosterForNewMember' | 'requireHome' | 'view'>;
  /** Why no licence seat is left, or null when one is. */
  readonly noSeat: () => string | null;
}

const expired = (r: PairingRow, now: number) => Date.parse(r.expires_at) <= now;

export function createPairingHome(deps: Deps) {
  const { store, pairing, ledger, writer, clock, identity, keychain } = deps;
  const homePub = pubOf(identity.sigPub, identity.kxPub);

  function code(r: PairingRow, keychainId: string): string | null {
    if (r.home_nonce === null || r.joiner_nonce === null) return null;
    return pairingCode({
      keychainId,
      requestId: r.request_id,
      homePub,
      joinerPub: pubOf(r.peer_sig_pub, r.peer_kx_pub),
      homeNonce: r.home_nonce,
      joinerNonce: r.joiner_nonce,
    });
  }

  /** The joiner's own open request, or why not (the joiner reads the reason). */
  function requestOf(fp: string, requestId: string): PairingRow {
    const r = pairing.get(requestId);
    if (r === null || r.side !== 'home' || r.peer_fp !== fp)
      throw new NotFoundError('not_found', `no pairing request ${requestId} from this install`, {
        field: 'request_id',
      });
    return r;
  }

  function requireOpen(r: PairingRow): void {
    if (r.state !== 'open')
      throw new ConflictError('pairing_ended', `the request has ended (${r.state})`, {
        why: r.reason ?? r.state,
      });
    if (expired(r, clock.now()))
      throw new ConflictError('pairing_expired', 'the pairing window has closed: start again', {
        why: 'expired',
      });
  }

  /** Both sides confirmed: the joiner is added (in the caller's writer job). */
  function admitIfBoth(r: PairingRow): boolean {
    const now = pairing.get(r.request_id);
    if (now === null || now.home_confirmed !== 1 || now.joiner_confirmed !== 1) return false;
    keychain.admit(
      now.peer_fp,
      {
        sig_pub: now.peer_sig_pub,
        kx_pub: now.peer_kx_pub,
        label: now.peer_label,
        address: now.address,
      },
      `pairing:${now.request_id}`,
      false,
    );
    pairing.end(now.request_id, 'added', null);
    return true;
  }

  /** A wrong code, typed on either side: the request ends; the window's third closes it. */
  function codeFailed(r: PairingRow, side: 'home' | 'joiner', actor: string): void {
    if (!pairing.end(r.request_id, 'failed', 'code')) return;
    ledger.append({
      type: 'keychain.join_code_failed',
      actor,
      data: { request_id: r.request_id, side, fingerprint: r.peer_fp },
    });
    if (r.window_id === null) return;
    pairing.failWindow(r.window_id);
    const w = pairing.window(r.window_id);
    if (w === null || w.failures < WINDOW_MAX_FAILURES || w.closed_at !== null) return;
    pairing.closeWindow(w.id, clock.nowIso());
    // Its requests still open end with it: none can be confirmed after the third wrong code.
    for (const open of pairing.list('home'))
      if (open.window_id === w.id && pairing.end(open.request_id, 'cancelled', 'window closed'))
        ledger.append({
          type: 'keychain.join_cancelled',
          actor: 'system',
          data: { request_id: open.request_id, side: 'home', reason: 'window closed' },
        });
    ledger.append({
      type: 'keychain.window_closed',
      actor: 'system',
      data: { window_id: w.id, reason: 'wrong codes' },
    });
  }

  async function statusOf(r: PairingRow): Promise<JoinStatus> {
    if (r.state === 'added') return { state: 'added', roster: keychain.rosterForNewMember() };
    if (r.state !== 'open') return { state: r.state, reason: r.reason ?? r.state };
    if (expired(r, clock.now())) return { state: 'expired', reason: 'the pairing window closed' };
    return {
      state: 'open',
      home_confirmed: r.home_confirmed === 1,
      joiner_confirmed: r.joiner_confirmed === 1,
    };
  }

  return {
    /** POST /v1/keychain/window. */
    async openWindow(actor: Actor) {
      await writer.transact(() => {
        keychain.requireHome();
        const id = `pw_${base32(randomBytes(10)).toLowerCase()}`;
        const opened = clock.nowIso();
        const expiresAt = new Date(clock.now() + WINDOW_MINUTES * 60_000).toISOString();
        const before = pairing.latestWindow();
        if (before !== null && before.closed_at === null) pairing.closeWindow(before.id, opened);
        pairing.prune(new Date(clock.now() - 3_600_000).toISOString());
        pairing.openWindow(id, opened, expiresAt);
        ledger.append({
          type: 'keychain.window_opened',
          actor: actor.name,
          data: { window_id: id, expires_at: expiresAt },
        });
      });
      return keychain.view();
    },

    /** /peer/join/hello: a new request in the open window; the home commits to its nonce. */
    async hello(j: Joiner) {
      return writer.transact(() => {
        const st = keychain.requireHome();
        const w = pairing.latestWindow();
        if (w === null || w.closed_at !== null || Date.parse(w.expires_at) <= clock.now())
          throw new ConflictError(
            'window_closed',
            'pairing is not open on the home: an admin there opens it (POST /v1/keychain/window)',
            { why: 'closed' },
          );
        if (
          pairing.openInWindow(w.id) >= WINDOW_MAX_OPEN ||
          pairing.requestsInWindow(w.id) >= WINDOW_MAX_REQUESTS
        )
          throw new ConflictError('window_full', 'too many installs are pairing now: try later', {
            why: 'full',
          });
        const known = store.member(j.fingerprint);
        if (known !== null && known.removed_at === null)
          throw new ConflictError('already_member', 'this install is in the keychain already', {
            why: 'member',
          });
        const requestId = `pr_${base32(randomBytes(10)).toLowerCase()}`;
        const homeNonce = newNonce();
        const commit = commitment(homePub, pubOf(j.sig_pub, j.kx_pub), homeNonce);
        pairing.put({
          request_id: requestId,
          side: 'home',
          window_id: w.id,
          keychain_id: st.keychain_id,
          peer_fp: j.fingerprint,
          peer_sig_pub: j.sig_pub,
          peer_kx_pub: j.kx_pub,
          peer_label: j.label,
          own_label: null,
          address: j.address,
          commit_hash: commit,
          home_nonce: homeNonce,
          joiner_nonce: null,
          state: 'open',
          reason: null,
          home_confirmed: 0,
          joiner_confirmed: 0,
          created_at: clock.nowIso(),
          expires_at: w.expires_at,
        });
        ledger.append({
          type: 'keychain.join_requested',
          actor: `peer:${j.fingerprint}`,
          data: {
            request_id: requestId,
            window_id: w.id,
            fingerprint: j.fingerprint,
            label: j.label,
            address: j.address,
          },
        });
        return {
          request_id: requestId,
          commit,
          expires_at: w.expires_at,
          home_label: store.member(identity.fingerprint)?.label ?? st.label,
        };
      });
    },

    /**
     * /peer/join/nonce: the joiner's nonce, once (a second, different one would let it try
     * codes); the home's is revealed in return. A retry with the same nonce is answered again.
     */
    async nonce(fp: string, requestId: string, joinerNonce: string) {
      return writer.transact(() => {
        const r = requestOf(fp, requestId);
        requireOpen(r);
        if (r.joiner_nonce !== null && r.joiner_nonce !== joinerNonce)
          throw new ConflictError('nonce_given', 'this request has its nonce already', {
            why: 'nonce',
          });
        if (r.home_nonce === null) throw new Error('a home request without its nonce');
        pairing.setNonces(requestId, r.home_nonce, joinerNonce);
        return { home_nonce: r.home_nonce };
      });
    },

    /** /peer/join/confirm: the joiner's admin typed our code there. */
    async joinerConfirmed(fp: string, requestId: string): Promise<JoinStatus> {
      await writer.transact(() => {
        const r = requestOf(fp, requestId);
        requireOpen(r);
        if (r.joiner_nonce === null)
          throw new ConflictError('no_code_yet', 'the request has no code yet', { why: 'nonce' });
        if (r.joiner_confirmed === 0) {
          pairing.confirm(requestId, 'joiner');
          ledger.append({
            type: 'keychain.join_confirmed',
            actor: `peer:${fp}`,
            data: { request_id: requestId, side: 'joiner', fingerprint: fp },
          });
        }
        admitIfBoth(r);
      });
      return statusOf(requestOf(fp, requestId));
    },

    /** /peer/join/status: the joiner waiting for our admin. */
    status: (fp: string, requestId: string) => statusOf(requestOf(fp, requestId)),

    /** /peer/join/abort: the joiner cancelled, or its admin typed a wrong code there. */
    async abort(fp: string, requestId: string, reason: 'cancelled' | 'code') {
      await writer.transact(() => {
        const r = requestOf(fp, requestId);
        if (reason === 'code') codeFailed(r, 'joiner', `peer:${fp}`);
        else if (pairing.end(r.request_id, 'cancelled', reason))
          ledger.append({
            type: 'keychain.join_cancelled',
            actor: `peer:${fp}`,
            data: { request_id: requestId, side: 'joiner', reason },
          });
      });
      return { ended: true };
    },

    /** POST /v1/keychain/members/confirm: the code the joiner shows, typed here. */
    async confirmMember(fp: string, typed: string, actor: Actor) {
      const mismatch = await writer.transact(() => {
        const st = keychain.requireHome();
        const r = pairing
          .list('home')
          .find((x) => x.peer_fp === fp && x.state === 'open' && !expired(x, clock.now()));
        if (r === undefined)
          throw new NotFoundError('not_found', `no install ${fp} is pairing now`, {
            field: 'fingerprint',
          });
        const expected = code(r, st.keychain_id);
        if (expected === null)
          throw new ConflictError('no_code_yet', 'that install has not finished its part yet', {
            why: 'nonce',
          });
        if (!codeMatches(typed, expected)) {
          codeFailed(r, 'home', actor.name);
          return true;
        }
        pairing.confirm(r.request_id, 'home');
        ledger.append({
          type: 'keychain.join_confirmed',
          actor: actor.name,
          data: { request_id: r.request_id, side: 'home', fingerprint: fp },
        });
        admitIfBoth(r);
        return false;
      });
      if (mismatch)
        throw new ConflictError(
          'code_mismatch',
          'the code does not match: this request has ended; the other install asks to join again',
          { why: 'code' },
        );
      return keychain.view();
    },

    /** POST /v1/keychain/joins/approve: a paired member takes a licence seat. */
    async approve(request: string, actor: Actor) {
      await writer.transact(() => {
        keychain.requireHome();
        const m = store
          .members()
          .find((x) => x.via === `pairing:${request}` || x.via === `site_key:${request}`);
        if (m === undefined)
          throw new NotFoundError('not_found', `no member joined by request ${request}`, {
            field: 'request',
          });
        if (m.licensed === 1) return;
        const why = deps.noSeat();
        if (why !== null)
          throw new ConflictError('no_seat', `no licence seat is left: ${why}`, { why });
        ledger.append({
          type: 'keychain.join_approved',
          actor: actor.name,
          data: { request, fingerprint: m.fingerprint },
        });
      });
      return keychain.view();
    },

    /** The keys a request was made with, when `keyid` is the install that made it. */
    keysOf(requestId: string, keyid: string): { sig_pub: string; kx_pub: string } | null {
      const r = pairing.get(requestId);
      return r === null || r.side !== 'home' || r.peer_fp !== keyid
        ? null
        : { sig_pub: r.peer_sig_pub, kx_pub: r.peer_kx_pub };
    },

    /** What GET /v1/keychain shows of pairing on the home: the window and its requests. */
    view() {
      const st = store.state();
      if (st?.role !== 'home') return null;
      const w = pairing.latestWindow();
      const now = clock.now();
      const open = w !== null && w.closed_at === null && Date.parse(w.expires_at) > now;
      return {
        window: w === null ? null : { id: w.id, open, expires_at: w.expires_at },
        requests: pairing.list('home').map((r) => ({
          request_id: r.request_id,
          fingerprint: r.peer_fp,
          fp_short: r.peer_fp.slice(0, 12),
          label: r.peer_label,
          address: r.address,
          state: r.state === 'open' && expired(r, now) ? 'expired' : r.state,
          code: r.state === 'open' ? code(r, st.keychain_id) : null,
          home_confirmed: r.home_confirmed === 1,
          joiner_confirmed: r.joiner_confirmed === 1,
          expires_at: r.expires_at,
        })),
      };
    },
  };
}
export type PairingHome = ReturnType<typeof createPairingHome>;
