// A member's pull from its home (design/keychain.md §2.5, §2.8): every 30 s, or at once on
// POST /v1/keychain/pull. The home hears the member (its health), the member learns the
// roster and the authority log, kept only when the log holds and follows what it already
// has at the same or a higher epoch.
import type { KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { oneFreshRun } from '../shared/fresh-run.js';
import { checkLog, importSigPub, recordHash, type LogRecord } from './authority-log.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Identity, Roster } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';
import { callPeer } from './peer-client.js';
import { applyParts, openPartDocs, type PartAdapter, type PartOutcome } from './parts.js';
import { isShowing, showing, witness } from './witness.js';
import type { Handover, Moved } from './handover.js';

export const PULL_EVERY_S = 30;

export type PullResult =
  | { readonly ok: true; readonly changed: boolean; readonly parts: PartOutcome[] }
  | {
      readonly ok: false;
      readonly why: string;
      readonly status?: number;
      /** The answer was not signed by the home: it proves nothing about the home. */
      readonly unsigned?: true;
    };

/** Whether `next` extends `known` (the same records first), as a log may only grow. */
function extendsLog(known: readonly LogRecord[], next: readonly LogRecord[]): boolean {
  if (next.length < known.length) return false;
  return known.every((r, i) => next[i] !== undefined && recordHash(next[i]) === recordHash(r));
}

export function createMemberSync(deps: {
  store: KeychainStore;
  ledger: DomainLedger<KeychainEvents>;
  writer: Writer;
  clock: Clock;
  identity: Identity;
  /** This install's agreement key: the parts come sealed to it. */
  agreementKey: KeyObject;
  adapters: readonly PartAdapter[];
  /** Out of the keychain (keychain.left): the home removed us, or we left. */
  forget: (reason: string, homeInformed: boolean) => Promise<unknown>;
  ledgerHead: () => { seq: number; hash: Buffer | null };
  hashAt: (seq: number) => Buffer | null;
  /** Handover (handover.ts): the offer a pull answer carries, and a home that moved. */
  handover: Pick<Handover, 'saw' | 'follow'>;
  /**
   * After each pull that held, with whether the home offers a licence seat (licence-seat.ts);
   * it never throws.
   */
  afterPull?: (seatOffered: boolean) => Promise<void>;
}) {
  const { store, ledger, writer, clock, identity, adapters } = deps;
  let last: PullResult | null = null;
  // Home silence as this process saw it (take-over): since the first failed pull after the
  // last answer, and how many failed; time this install was down is not counted.
  let silentSince: number | null = null;
  let failures = 0;

  // Refusals recorded since start: a part refused at every pull is recorded once.
  const refused = new Set<string>();

  // One pull at a time: a timed pull and one asked for never overlap (witnesses, log order).
  // A pull asked for while one is under way gets the next one: "Sync now" right after a
  // change on the home must not answer with a timed pull that left before it.
  const pull = oneFreshRun(async (): Promise<PullResult> => {
    const r = await pullOnce();
    // A signed answer of any kind is the home alive; no answer, a 5xx or an unsigned 429
    // (anyone on the path could send one to hold a take-over off) is silence.
    const heard = r.ok || (r.status !== undefined && r.status < 500 && r.unsigned !== true);
    if (heard) {
      silentSince = null;
      failures = 0;
    } else if (store.state()?.role === 'member') {
      silentSince ??= clock.now();
      failures += 1;
    }
    return r;
  });

  async function pullOnce(): Promise<PullResult> {
    const st = store.state();
    if (st?.role !== 'member')
      return (last = { ok: false, why: 'this install is not a keychain member' });
    const home = store.member(st.home_fp);
    const homeKey = home === null ? null : importSigPub(home.sig_pub);
    if (home === null || homeKey === null || home.address === null)
      return (last = { ok: false, why: 'the roster holds no address or key for the home' });
    const answer = await callPeer(
      { url: home.address, fingerprint: home.fingerprint, key: homeKey },
      '/v1/keychain/peer/pull',
      {
        // Our head, and our hash where the home saw us last; and where we saw the home last.
        witness: showing(
          { head: deps.ledgerHead },
          deps.hashAt,
          store.witness(identity.fingerprint)?.seq ?? null,
        ),
        home_at: store.witness(st.home_fp)?.seq ?? null,
      },
      {
        signer: { fingerprint: identity.fingerprint, key: identity.key },
        keychainId: st.keychain_id,
        epoch: st.epoch,
        head: store.head()?.hash ?? '',
        now: clock.now(),
      },
    );
    if (answer.kind !== 'answered') return (last = { ok: false, why: answer.why });
    const refusal = answer.body as { error?: string } | null;
    if (answer.status === 403 && refusal?.error === 'member_removed') {
      // Signed by the home and bound to our request: believed, and no more retries.
      await deps.forget('removed by the home', true);
      return (last = {
        ok: false,
        status: 403,
        why: 'the home removed this install from the keychain',
      });
    }
    if (answer.status === 409 && refusal?.error === 'home_moved') {
      // Signed by the home we pin: it handed the home over; follow, then pull from the new one.
      const why = await deps.handover.follow(answer.body as Moved);
      if (why !== null) return (last = { ok: false, status: 409, why: `the home moved: ${why}` });
      return pullOnce();
    }
    if (answer.status !== 200) {
      const body = answer.body as { message?: string } | null;
      return (last = {
        ok: false,
        status: answer.status,
        why: body?.message ?? `the home answered ${String(answer.status)}`,
        ...(answer.unsigned === true && { unsigned: true as const }),
      });
    }
    const answered = answer.body as Roster & { handover?: unknown; licence_seat?: unknown };
    deps.handover.saw(answered.handover);
    // The home's entry carries no address of its own: keep the one we reach it at.
    const roster: Roster = {
      ...answered,
      members: answered.members.map((m) =>
        m.fingerprint === home.fingerprint && m.address === null
          ? { ...m, address: home.address }
          : m,
      ),
    };
    const known = store.log();
    const problem =
      roster.keychain_id !== st.keychain_id
        ? 'the home answered for another keychain'
        : roster.epoch < st.epoch
          ? `the home is at epoch ${String(roster.epoch)}, below ours (${String(st.epoch)})`
          : (checkLog(roster.records, st.keychain_id) ??
            (extendsLog(known, roster.records) ? null : 'the log does not extend ours'));
    if (problem !== null) return (last = { ok: false, why: problem });
    const members = store.rosterEntries();
    const changed =
      roster.epoch !== st.epoch ||
      roster.records.length !== known.length ||
      canonicalJson(roster.members) !== canonicalJson(members) ||
      canonicalJson(roster.carried) !== st.carried;
    const seen = (answer.body as { witness?: { you?: { seq?: unknown } | null; home?: unknown } })
      .witness;
    await writer.transact(() => {
      store.heard(st.home_fp, clock.nowIso());
      if (isShowing(seen?.home))
        witness({ store, ledger, now: clock.nowIso() }, st.home_fp, seen.home);
      const you = seen?.you?.seq;
      if (typeof you === 'number' && Number.isInteger(you))
        store.witnessed(identity.fingerprint, you, '', clock.nowIso());
      if (changed)
        ledger.append({
          type: 'keychain.roster_synced',
          actor: 'system',
          data: {
            epoch: roster.epoch,
            carried: roster.carried,
            members: roster.members,
            records: roster.records,
          },
        });
    });
    const now = store.state() ?? st;
    const opened = openPartDocs(
      st.keychain_id,
      { fp: identity.fingerprint, agreementKey: deps.agreementKey },
      answered.sealed_parts,
    );
    const parts = await applyParts(
      { store, ledger, writer, adapters, homeKey, homeFp: home.fingerprint, refused },
      now,
      // A part this member keeps its own copy of is left alone.
      roster.parts.filter(
        (p) =>
          roster.carried.includes(p.part) && !(JSON.parse(now.owned) as string[]).includes(p.part),
      ),
      opened,
    );
    last = { ok: true, changed, parts };
    await deps.afterPull?.(answered.licence_seat === true);
    return last;
  }

  /** A signed call from this member to its home, or null when the roster gives no way there. */
  function callHome(path: string, payload: unknown) {
    const st = store.state();
    const home = st === null ? null : store.member(st.home_fp);
    const homeKey = home === null ? null : importSigPub(home.sig_pub);
    if (st?.role !== 'member' || home?.address == null || homeKey === null) return null;
    return callPeer(
      { url: home.address, fingerprint: home.fingerprint, key: homeKey },
      path,
      payload,
      {
        signer: { fingerprint: identity.fingerprint, key: identity.key },
        keychainId: st.keychain_id,
        epoch: st.epoch,
        head: store.head()?.hash ?? '',
        now: clock.now(),
      },
    );
  }

  /** POST /v1/keychain/leave on a member: tell the home (when it answers), then leave. */
  async function leave(): Promise<{ homeInformed: boolean }> {
    const answer = await callHome('/v1/keychain/peer/leave', {});
    const informed = answer?.kind === 'answered' && answer.status === 200;
    await deps.forget(informed ? 'left' : 'left (home not informed)', informed);
    return { homeInformed: informed };
  }

  /**
   * POST /v1/keychain/rename on a member: only itself, through the home (whose log holds
   * labels); learnt back at once by a pull. Why not, or null when renamed.
   */
  async function renameSelf(label: string): Promise<string | null> {
    const answer = await callHome('/v1/keychain/peer/rename', { label });
    if (answer === null) return 'the roster holds no address for the home';
    if (answer.kind !== 'answered') return `the home cannot be reached: ${answer.why}`;
    if (answer.status !== 200)
      return (
        (answer.body as { message?: string } | null)?.message ??
        `the home answered ${String(answer.status)}`
      );
    await pull();
    return null;
  }

  return {
    pull,
    leave,
    renameSelf,
    callHome,
    last: (): PullResult | null => last,
    silence: () => ({ since: silentSince, failures }),
  };
}
export type MemberSync = ReturnType<typeof createMemberSync>;
