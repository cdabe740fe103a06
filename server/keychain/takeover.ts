// Taking over as home when the home is lost (design/keychain.md §2.7): the owner on a member
// that has itself seen the home fail to answer for 15 minutes claims the home at the next
// epoch, signing a takeover record; every other member it can reach accepts only when it has
// not heard the home for 3 minutes itself (else 409 home_alive). The claim is made only when
// one member accepts, none other exists, or the owner forces it. A home that comes back asks
// its members which epoch they are at; shown a valid take-over extending its own log it steps
// down (keychain.home_superseded), shown one that does not it refuses and says so
// (keychain.takeover_invalid). No member ever applies anything from a lower epoch.
import type { KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError } from '../shared/errors.js';
import type { Actor } from '../shared/types.js';
import {
  adoptsMembers,
  appendRecord,
  forkBetween,
  checkLog,
  homeOfLog,
  importSigPub,
  recordHash,
  rosterOfLog,
  type LogRecord,
} from './authority-log.js';
import { adoptMissed } from './fork-adopt.js';
import { COPY_NOT_WRITTEN, type Handover, type Moved } from './handover.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Identity } from './keychain.service.js';
import type { KeychainStore, MemberRow } from './keychain.store.js';
import { KEYCHAIN_PARTS } from './parts.js';
import { callPeer } from './peer-client.js';

/** Home silence a member must have seen itself before its owner may take over. */
export const TAKEOVER_SILENCE_MS = 15 * 60_000;
/** Failed pulls within that silence, so that one clock jump alone cannot make it. */
export const TAKEOVER_MIN_FAILURES = 3;
/** A member that heard the home this recently refuses a take-over. */
export const HOME_ALIVE_MS = 180_000;

interface Deps {
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly identity: Identity;
  readonly handover: Pick<Handover, 'follow'>;
  /** Since when this process has seen the home fail to answer, and how many pulls failed. */
  readonly silence: () => { since: number | null; failures: number };
  readonly silenceMs: number;
  readonly homeAliveMs: number;
  readonly publish: () => Promise<void>;
}

const extendsLog = (known: readonly LogRecord[], next: readonly LogRecord[]) =>
  next.length >= known.length &&
  known.every((r, i) => next[i] !== undefined && recordHash(next[i]) === recordHash(r));

/** Who the take-over at the head of the epoch of a log's last record claims the home for. */
function claimOf(records: readonly LogRecord[]): string | null {
  const last = records.at(-1);
  const claim = records.find((r) => r.type === 'takeover' && r.epoch === last?.epoch)?.body['to'];
  return typeof claim === 'string' ? claim : null;
}

export function createTakeover(deps: Deps) {
  const { store, ledger, writer, clock, identity } = deps;
  /** The fork between our log and one a peer showed; null for none, or a log of no shape. */
  const forkOf = (records: unknown) => {
    if (!Array.isArray(records)) return null;
    try {
      return forkBetween(store.log(), records as LogRecord[]);
    } catch {
      return null; // records of no shape (a missing body, say): no fork to speak of
    }
  };
  /** Whether a log a peer showed holds (a log of no shape does not). */
  const holds = (records: unknown, keychainId: string): boolean => {
    try {
      return Array.isArray(records) && checkLog(records as LogRecord[], keychainId) === null;
    } catch {
      return false;
    }
  };
  /**
   * On the home that wins a fork: the old home's records only the other side holds are
   * signed again here (fork-adopt.ts), so that the members they add are not lost when the
   * loser follows us.
   */
  async function adoptIfWinning(records: unknown, told: string): Promise<void> {
    const st = store.state();
    const fork = st?.role === 'home' ? forkOf(records) : null;
    if (st === null || fork === null || fork.theirsOnly.length === 0) return;
    if (recordHash(fork.theirs) < recordHash(fork.ours)) return;
    if (!holds(records, st.keychain_id)) return;
    const n = await writer.transact(() => adoptMissed(deps, fork.theirsOnly, told));
    if (n > 0) await deps.publish();
  }

  const self = identity.fingerprint;
  const signer = { fingerprint: self, key: identity.key };

  /**
   * Whether our own log removed this install last (it may have missed its removal, or our
   * roster may never have listed it): a later member_add is a new membership.
   */
  function removedHere(fp: string): boolean {
    const last = store
      .log()
      .findLast(
        (r) => (r.type === 'member_remove' || r.type === 'member_add') && r.body['fp'] === fp,
      );
    return last?.type === 'member_remove';
  }

  /**
   * On a home shown another home's log at our epoch (its answer, or its ask): the lower
   * take-over record wins. The winner adopts what only the loser saw; the loser follows once
   * the winner holds every member it knows, and only when no other member still follows it:
   * a fork comes from a split, and one member alone cannot unseat a home. True when we
   * followed.
   */
  async function onFork(moved: Moved, told: string): Promise<boolean> {
    const st = store.state();
    const fork = st?.role === 'home' ? forkOf(moved.records) : null;
    if (st === null || fork === null) return false;
    if (recordHash(fork.theirs) >= recordHash(fork.ours)) {
      await adoptIfWinning(moved.records, told);
      return false;
    }
    if (!adoptsMembers(fork.oursOnly, moved.records)) return false;
    const claimant = claimOf(moved.records);
    // A claimant the old home removed (it missed its own removal) never wins here.
    if (claimant !== null && removedHere(claimant)) return false;
    const contact = store.contact();
    const followed = store
      .members()
      .some(
        (x) =>
          x.fingerprint !== self &&
          x.fingerprint !== claimant &&
          clock.now() - Date.parse(contact.get(x.fingerprint) ?? '') < deps.homeAliveMs,
      );
    const why = followed
      ? 'a fork was shown while other members follow this home'
      : await deps.handover.follow(moved);
    if (why === null) return true;
    if (why === COPY_NOT_WRITTEN) return false;
    await writer.transact(() =>
      ledger.append({
        type: 'keychain.takeover_invalid',
        actor: 'system',
        data: { told_by: told, why },
      }),
    );
    return false;
  }

  function movedFor(records: LogRecord[]): Moved {
    const home = homeOfLog(records);
    const st = store.state();
    return {
      home_fp: home.home_fp,
      epoch: home.epoch,
      records,
      members: store.rosterEntries(),
      // A new home by take-over carries what the old one carried to it.
      skip:
        st === null
          ? []
          : KEYCHAIN_PARTS.filter((p) => !(JSON.parse(st.carried) as string[]).includes(p)),
    };
  }

  function call(m: MemberRow, path: string, payload: unknown) {
    const key = importSigPub(m.sig_pub);
    const st = store.state();
    if (key === null || m.address === null || st === null) return null;
    return callPeer({ url: m.address, fingerprint: m.fingerprint, key }, path, payload, {
      signer,
      keychainId: st.keychain_id,
      epoch: st.epoch,
      head: store.head()?.hash ?? '',
      now: clock.now(),
    });
  }

  return {
    /** POST /v1/keychain/take-over (owner, on a member). */
    async claim(force: boolean, actor: Actor) {
      const st = store.state();
      if (st?.role !== 'member')
        throw new ConflictError('not_member', 'only a member can take over as home', {
          why: st === null ? 'no keychain' : 'home',
        });
      const s = deps.silence();
      const silentMs = s.since === null ? 0 : clock.now() - s.since;
      if (silentMs < deps.silenceMs || s.failures < TAKEOVER_MIN_FAILURES)
        throw new ConflictError(
          'home_not_silent',
          `the home has failed to answer this install for ${String(Math.floor(silentMs / 1000))} s (${String(s.failures)} pulls); a take-over needs ${String(Math.round(deps.silenceMs / 60_000))} minutes of silence seen here, and time this install was down does not count`,
          { why: 'silence' },
        );
      const log = store.log();
      const record = appendRecord(
        log.at(-1) ?? null,
        {
          keychain_id: st.keychain_id,
          epoch: st.epoch + 1,
          type: 'takeover',
          body: {
            from: st.home_fp,
            to: self,
            home_silent_since: new Date(s.since ?? clock.now()).toISOString(),
          },
        },
        { fp: self, key: identity.key },
        clock.nowIso(),
      );
      const records = [...log, record];
      const problem = checkLog(records, st.keychain_id);
      if (problem !== null)
        throw new ConflictError('takeover_invalid', `the take-over would not hold: ${problem}`, {
          why: problem,
        });
      const others = store
        .members()
        .filter((m) => m.fingerprint !== self && m.fingerprint !== st.home_fp);
      const answers = await Promise.all(
        others.map(async (m) => (await call(m, '/v1/keychain/peer/takeover', { records })) ?? null),
      );
      const said = (status: number) =>
        answers.filter((a) => a?.kind === 'answered' && a.status === status).length;
      const accepted = said(200);
      const alive = answers.filter(
        (a) =>
          a?.kind === 'answered' && (a.body as { error?: string } | null)?.error === 'home_alive',
      ).length;
      // force stands in for a confirmation no one could give, never against a member that
      // heard the home lately; and the home must still be silent after the round.
      const stillSilent = deps.silence().since !== null;
      if (alive > 0 || !stillSilent || (accepted === 0 && others.length > 0 && !force)) {
        await writer.transact(() =>
          ledger.append({
            type: 'keychain.takeover_rejected',
            actor: actor.name,
            data: {
              claimant: self,
              reason: alive > 0 || !stillSilent ? 'home_alive' : 'unconfirmed',
              by: null,
            },
          }),
        );
        const homeAlive = alive > 0 || !stillSilent;
        throw new ConflictError(
          homeAlive ? 'home_alive' : 'takeover_unconfirmed',
          alive > 0
            ? `${String(alive)} member(s) heard the home within 3 minutes: it is not lost`
            : !stillSilent
              ? 'the home answered this install again: it is not lost'
              : 'no other member could confirm the home is lost; pass force to take over anyway',
          { why: homeAlive ? 'home_alive' : 'unconfirmed' },
        );
      }
      const why = await deps.handover.follow(movedFor(records), actor.name);
      if (why !== null)
        throw new ConflictError('takeover_invalid', `the take-over could not be kept: ${why}`, {
          why,
        });
      await writer.transact(() =>
        ledger.append({
          type: 'keychain.took_over',
          actor: actor.name,
          data: { from: st.home_fp, epoch: record.epoch, accepted, force, record },
        }),
      );
      await deps.publish();
    },

    /** /peer/takeover on a member: another member claims the home. */
    async received(fromFp: string, body: Record<string, unknown> | null) {
      const st = store.state();
      const records = Array.isArray(body?.['records']) ? (body['records'] as LogRecord[]) : [];
      const last = records.at(-1);
      if (st?.role !== 'member' || last === undefined)
        throw new ConflictError('not_member', 'this install follows no home', { why: 'role' });
      const problem =
        checkLog(records, st.keychain_id) ??
        (records.length === store.log().length + 1 && extendsLog(store.log(), records)
          ? null
          : 'the claim does not follow our log by one record') ??
        (last.type === 'takeover' && last.body['to'] === fromFp && last.epoch === st.epoch + 1
          ? null
          : 'the last record is not this install’s take-over at the next epoch');
      if (problem !== null) throw new ConflictError('takeover_invalid', problem, { why: 'chain' });
      const heard = store.contact().get(st.home_fp);
      if (heard !== undefined && clock.now() - Date.parse(heard) < deps.homeAliveMs) {
        await writer.transact(() =>
          ledger.append({
            type: 'keychain.takeover_rejected',
            actor: `peer:${fromFp}`,
            data: { claimant: fromFp, reason: 'home_alive', by: self },
          }),
        );
        throw new ConflictError('home_alive', 'this member heard the home within 3 minutes', {
          why: 'home_alive',
        });
      }
      const why = await deps.handover.follow(movedFor(records), `peer:${fromFp}`);
      if (why !== null) throw new ConflictError('takeover_invalid', why, { why: 'chain' });
      return { accepted: true };
    },

    /** /peer/epoch on a member: a home asking whether it is still the home. */
    epochAnswer(
      theirEpoch: number,
      theirHead: string | null,
    ):
      | { stale: false; epoch: number }
      | { stale: true; moved: Moved }
      | { fork: true; moved: Moved } {
      const st = store.state();
      const log = store.log();
      const head = log.at(-1);
      // Another home at our epoch with another log: two take-overs (a partition in three).
      // We show ours; the asker keeps it only if it wins (winsFork), and so do we of theirs.
      if (
        st?.role === 'home' &&
        theirEpoch === st.epoch &&
        theirHead !== null &&
        head !== undefined &&
        theirHead !== recordHash(head)
      )
        return { fork: true, moved: movedFor(log) };
      if (st === null || theirEpoch >= st.epoch) return { stale: false, epoch: st?.epoch ?? 0 };
      return { stale: true, moved: movedFor(log) };
    },

    /** Whether our own log removed this install last (the epoch route refuses it, 403). */
    removedHere,

    /**
     * The key of an install not on our roster that asks as the other side of a fork: the
     * old home added it in the log it shows, which must hold and fork with ours. The other
     * claimant may have seen a member join that this home missed.
     */
    keyShownBy(fp: string, records: unknown): KeyObject | null {
      const st = store.state();
      if (st?.role !== 'home' || forkOf(records) === null) return null;
      if (!holds(records, st.keychain_id)) return null;
      const entry = rosterOfLog(records as LogRecord[]).find((x) => x.fingerprint === fp);
      return entry === undefined ? null : importSigPub(entry.sig_pub);
    },

    /**
     * /peer/epoch on a home, asked by another home that sent its log: two take-overs at our
     * epoch are settled here as well as when we ask (the asker may not know us).
     */
    async shown(records: unknown, told: string): Promise<void> {
      const st = store.state();
      if (st?.role !== 'home' || !Array.isArray(records) || forkOf(records) === null) return;
      const log = records as LogRecord[];
      const home = homeOfLog(log);
      await onFork(
        { home_fp: home.home_fp, epoch: home.epoch, records: log, members: [], skip: [] },
        told,
      );
    },

    /**
     * On a home: ask members (the silent ones, or all) which epoch they follow. Shown a valid
     * take-over of this home it steps down; shown one that does not hold it says so.
     */
    async askMembers(onlySilent: boolean): Promise<void> {
      const st = store.state();
      if (st?.role !== 'home') return;
      const contact = store.contact();
      const asked = store
        .members()
        .filter((m) => m.fingerprint !== self)
        .filter((m) => {
          const heard = contact.get(m.fingerprint);
          return (
            !onlySilent ||
            heard === undefined ||
            clock.now() - Date.parse(heard) >= deps.homeAliveMs
          );
        });
      const head = store.log().at(-1);
      for (const m of asked) {
        const ask = { epoch: st.epoch, head: head === undefined ? null : recordHash(head) };
        let answer = await call(m, '/v1/keychain/peer/epoch', ask);
        // Not known there (its refusal is unsigned): the other side of a fork that missed
        // our joining. Our log, which the old home signed us into, goes along the second
        // time (only then: it is long, and it says no more than a member's pull gets).
        if (answer?.kind === 'unverified' && answer.status === 401)
          answer = await call(m, '/v1/keychain/peer/epoch', { ...ask, records: store.log() });
        if (answer?.kind !== 'answered' || answer.status !== 409) continue;
        const moved = answer.body as (Moved & { error?: string }) | null;
        if (moved?.error === 'fork' && Array.isArray(moved.records)) {
          if (await onFork(moved, m.fingerprint)) return;
          continue;
        }
        if (moved?.error !== 'stale_epoch' || !Array.isArray(moved.records)) continue;
        // A take-over is believed from a member other than the one that claims the home (it
        // accepted the claim), or from the claimant alone when no other member exists: one
        // member cannot unseat a home by itself.
        const claim = moved.records.slice(store.log().length).find((x) => x.type === 'takeover')
          ?.body['to'];
        const othersExist = store
          .members()
          .some((x) => x.fingerprint !== self && x.fingerprint !== claim);
        if (claim === m.fingerprint && othersExist) continue;
        const why = await deps.handover.follow(moved);
        if (why === COPY_NOT_WRITTEN) return;
        await writer.transact(() =>
          ledger.append(
            why === null
              ? {
                  type: 'keychain.home_superseded',
                  actor: 'system',
                  data: { by: moved.home_fp, epoch: moved.epoch, told_by: m.fingerprint },
                }
              : {
                  type: 'keychain.takeover_invalid',
                  actor: 'system',
                  data: { told_by: m.fingerprint, why },
                },
          ),
        );
        if (why === null) return;
      }
    },
  };
}
export type Takeover = ReturnType<typeof createTakeover>;
