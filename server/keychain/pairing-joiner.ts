// Pairing by code, the joining install's side (design/keychain.md §2.4): it asks the home at
// `address` to pair, takes the home's commitment before giving its own nonce, checks the
// revealed nonce against it, and shows the six digits with the home's fingerprint. Its admin
// types the code the home shows (join/confirm); once the home's admin has typed ours, the
// home answers the roster sealed to us and this install is a member.
import type { KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import { importSigPub } from './authority-log.js';
import { askHello, keepRoster } from './join.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Identity } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';
import { codeMatches, commitmentHolds, newNonce, pairingCode } from './pairing-code.js';
import type { PairingRow, PairingStore } from './pairing.store.js';
import { pubOf } from './pairing.js';
import { callPeer, type PeerAnswer } from './peer-client.js';

interface Deps {
  readonly store: KeychainStore;
  readonly pairing: PairingStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly identity: Identity;
  readonly agreementKey: KeyObject;
  /** Where the keychain reaches this install (SVC_CONSOLE_URL), or null. */
  readonly address: string | null;
  /** After the roster is kept: the first pull, for the parts. */
  readonly onMember: () => void;
}

/** The home's answer to a request: its state, and the roster sealed to us once added. */
interface Status {
  readonly state?: string;
  readonly reason?: string;
  readonly sealed?: unknown;
  readonly error?: string;
  readonly message?: string;
}

/** An end the home decided (or the window's expiry), recorded here by the system. */
const HOME = { actor: 'system', side: 'home' } as const;

const unreachable = (a: Exclude<PeerAnswer, { kind: 'answered' }>) =>
  new ConflictError(
    'home_unreachable',
    a.kind === 'unreachable'
      ? `the home cannot be reached: ${a.why}`
      : `the home's answer could not be verified (${a.why})`,
    { why: a.kind },
  );

export function createPairingJoiner(deps: Deps) {
  const { store, pairing, ledger, writer, clock, identity } = deps;
  const ourPub = pubOf(identity.sigPub, identity.kxPub);
  const signer = { fingerprint: identity.fingerprint, key: identity.key };

  const current = (): PairingRow | null =>
    pairing.list('joiner').find((r) => r.state === 'open') ?? null;

  function codeOf(r: PairingRow): string {
    if (r.home_nonce === null || r.joiner_nonce === null)
      throw new Error('a joiner request is kept only with both nonces');
    return pairingCode({
      keychainId: r.keychain_id,
      requestId: r.request_id,
      homePub: pubOf(r.peer_sig_pub, r.peer_kx_pub),
      joinerPub: ourPub,
      homeNonce: r.home_nonce,
      joinerNonce: r.joiner_nonce,
    });
  }

  function call(r: PairingRow, path: string, payload: unknown) {
    const key = importSigPub(r.peer_sig_pub);
    if (key === null || r.address === null) throw new Error('a joiner request without its home');
    return callPeer({ url: r.address, fingerprint: r.peer_fp, key }, path, payload, {
      signer,
      keychainId: r.keychain_id,
      epoch: 0,
      head: '',
      now: clock.now(),
    });
  }

  /** Ends our request (it failed, was cancelled, or the home ended it), with its event. */
  async function end(
    r: PairingRow,
    state: 'failed' | 'cancelled',
    reason: string,
    by: { actor: string; side: 'home' | 'joiner' },
  ) {
    await writer.transact(() => {
      if (!pairing.end(r.request_id, state, reason)) return;
      if (state === 'failed' && reason === 'code')
        ledger.append({
          type: 'keychain.join_code_failed',
          actor: by.actor,
          data: { request_id: r.request_id, side: by.side, fingerprint: r.peer_fp },
        });
      else
        ledger.append({
          type: 'keychain.join_cancelled',
          actor: by.actor,
          data: { request_id: r.request_id, side: by.side, reason },
        });
    });
  }

  /** What the home said of our request: kept as a member, ended, or still open. */
  async function settle(r: PairingRow, s: Status): Promise<string> {
    // Only once our own admin typed the home's code: a home (or anyone between) saying
    // "added" before that is not believed.
    const now = pairing.get(r.request_id);
    if (s.state === 'added' && now?.joiner_confirmed !== 1) return 'open';
    if (s.state === 'added') {
      const kept = await keepRoster(
        { ...deps, label: r.own_label ?? 'member', url: r.address ?? '' },
        s.sealed,
        { keychainId: r.keychain_id, homeFp: r.peer_fp, via: `pairing:${r.request_id}` },
      );
      if (kept !== null) return 'open';
      await writer.transact(() => pairing.end(r.request_id, 'added', null));
      deps.onMember();
      return 'added';
    }
    if (s.state === 'failed' || s.state === 'cancelled' || s.state === 'expired') {
      await end(r, s.state === 'failed' ? 'failed' : 'cancelled', s.reason ?? s.state, HOME);
      return s.state;
    }
    return 'open';
  }

  return {
    /** POST /v1/keychain/join: ask the home at `address` to pair. */
    async join(address: string, label: string, actor: Actor) {
      if (store.state() !== null)
        throw new ConflictError('already_in_keychain', 'this install is in a keychain already', {
          why: store.state()?.role ?? 'member',
        });
      // The home may have ended our last request since we last asked.
      if (current() !== null) await this.poll();
      if (current() !== null)
        throw new ConflictError(
          'pairing_in_progress',
          'this install is pairing already: confirm or cancel that first (POST /v1/keychain/join/cancel)',
          { why: 'pairing' },
        );
      const asked = await askHello(address);
      if ('why' in asked)
        throw new ConflictError('home_unreachable', asked.why, {
          why: 'forged' in asked ? 'forged' : 'unreachable',
        });
      const { hello, homeKey } = asked;
      const target = { url: address, fingerprint: hello.home_fp, key: homeKey };
      const ctx = { signer, keychainId: hello.keychain_id, epoch: 0, head: '', now: clock.now() };
      const asks = await callPeer(
        target,
        '/v1/keychain/peer/join/hello',
        { sig_pub: identity.sigPub, kx_pub: identity.kxPub, label, address: deps.address },
        ctx,
      );
      if (asks.kind !== 'answered') throw unreachable(asks);
      const req = asks.body as {
        request_id?: string;
        commit?: string;
        expires_at?: string;
        home_label?: string;
        error?: string;
        message?: string;
      } | null;
      if (
        asks.status !== 200 ||
        typeof req?.request_id !== 'string' ||
        typeof req.commit !== 'string'
      )
        throw new ConflictError(
          req?.error ?? 'join_refused',
          `the home refused: ${req?.message ?? String(asks.status)}`,
          { why: req?.error ?? String(asks.status) },
        );
      // Our nonce only after the home is bound to its own: it cannot steer the code.
      const joinerNonce = newNonce();
      const reveal = await callPeer(
        target,
        '/v1/keychain/peer/join/nonce',
        { request_id: req.request_id, joiner_nonce: joinerNonce },
        { ...ctx, now: clock.now() },
      );
      if (reveal.kind !== 'answered') throw unreachable(reveal);
      const homeNonce = (reveal.body as { home_nonce?: unknown } | null)?.home_nonce;
      const homePub = pubOf(hello.home_sig_pub, hello.home_kx_pub);
      if (
        reveal.status !== 200 ||
        typeof homeNonce !== 'string' ||
        !commitmentHolds(req.commit, homePub, ourPub, homeNonce)
      ) {
        await writer.transact(() =>
          ledger.append({
            type: 'keychain.join_failed',
            actor: actor.name,
            data: { reason: 'commit', address },
          }),
        );
        throw new ConflictError(
          'pairing_commit_failed',
          'the home revealed a nonce it had not committed to: possible interference, not paired',
          { why: 'commit' },
        );
      }
      const homeLabel = (req.home_label ?? '').slice(0, 64) || 'home';
      await writer.transact(() => {
        pairing.put({
          request_id: req.request_id ?? '',
          side: 'joiner',
          window_id: null,
          keychain_id: hello.keychain_id,
          peer_fp: hello.home_fp,
          peer_sig_pub: hello.home_sig_pub,
          peer_kx_pub: hello.home_kx_pub,
          peer_label: homeLabel,
          own_label: label,
          address,
          commit_hash: req.commit ?? '',
          home_nonce: homeNonce,
          joiner_nonce: joinerNonce,
          state: 'open',
          reason: null,
          home_confirmed: 0,
          joiner_confirmed: 0,
          created_at: clock.nowIso(),
          expires_at: req.expires_at ?? new Date(clock.now() + 600_000).toISOString(),
        });
        ledger.append({
          type: 'keychain.join_started',
          actor: actor.name,
          data: {
            request_id: req.request_id ?? '',
            home_fp: hello.home_fp,
            home_label: homeLabel,
            address,
          },
        });
      });
      return this.view();
    },

    /** POST /v1/keychain/join/confirm: the code the home shows, typed here. */
    async confirm(typed: string, actor: Actor) {
      const r = current();
      if (r === null)
        throw new ConflictError(
          'not_pairing',
          'this install is not pairing now (POST /v1/keychain/join)',
          {
            why: 'none',
          },
        );
      if (!codeMatches(typed, codeOf(r))) {
        await end(r, 'failed', 'code', { actor: actor.name, side: 'joiner' });
        // The home ends its side too (and counts it against the window).
        await call(r, '/v1/keychain/peer/join/abort', { request_id: r.request_id, reason: 'code' });
        throw new ConflictError(
          'code_mismatch',
          "the code does not match the home's: this request has ended; ask to join again",
          { why: 'code' },
        );
      }
      await writer.transact(() => {
        pairing.confirm(r.request_id, 'joiner');
        ledger.append({
          type: 'keychain.join_confirmed',
          actor: actor.name,
          data: { request_id: r.request_id, side: 'joiner', fingerprint: r.peer_fp },
        });
      });
      const told = await call(r, '/v1/keychain/peer/join/confirm', { request_id: r.request_id });
      if (told.kind !== 'answered') throw unreachable(told);
      await settle(r, told.body ?? {});
      return this.view();
    },

    /** POST /v1/keychain/join/cancel. */
    async cancel(actor: Actor) {
      const r = current();
      if (r === null) return this.view();
      await end(r, 'cancelled', 'cancelled', { actor: actor.name, side: 'joiner' });
      await call(r, '/v1/keychain/peer/join/abort', {
        request_id: r.request_id,
        reason: 'cancelled',
      }).catch(() => undefined);
      return this.view();
    },

    /** Asks the home how our open request stands (the timer, while one is open). */
    async poll(): Promise<string | null> {
      const r = current();
      if (r === null) return null;
      if (Date.parse(r.expires_at) <= clock.now()) {
        await end(r, 'cancelled', 'expired', HOME);
        return 'expired';
      }
      const asked = await call(r, '/v1/keychain/peer/join/status', { request_id: r.request_id });
      if (asked.kind !== 'answered' || asked.status !== 200) return 'open';
      return settle(r, asked.body ?? {});
    },

    /** What GET /v1/keychain shows of our request, while one is open or just ended. */
    view() {
      const r = pairing.list('joiner')[0] ?? null;
      if (r === null) return null;
      return {
        request_id: r.request_id,
        state: r.state === 'open' && Date.parse(r.expires_at) <= clock.now() ? 'expired' : r.state,
        reason: r.reason,
        code: r.state === 'open' ? codeOf(r) : null,
        home: { fingerprint: r.peer_fp, fp_short: r.peer_fp.slice(0, 12), label: r.peer_label },
        address: r.address,
        confirmed: r.joiner_confirmed === 1,
        expires_at: r.expires_at,
      };
    },
  };
}
export type PairingJoiner = ReturnType<typeof createPairingJoiner>;
