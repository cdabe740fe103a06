// The licence part (spec: the keychain carries the licence). A licence binds the installs it
// lists, so the home cannot hand a member its document to install as it does the other
// parts. The home vouches for each member it seated instead (joins/approve, or a site key
// made with `licence`): the member asks as any new install does (licence.md §3.7, ask), the
// request and its code travel over the signed peer channel in place of a person carrying
// them, the home vouches with its own licence (the checks of a vouch by hand: the licence's
// seats and offline grants, the authority when it is reachable), and the member installs
// the answer, checked against its own open request and fingerprint. Nothing of it is a
// secret; the texts are signed end to end.
import type { DomainLedger } from '../ledger/index.js';
import type { Writer } from '../db/writer.js';
import type { Clock } from '../shared/clock.js';
import { ConflictError } from '../shared/errors.js';
import type { KeychainEvents } from './keychain.events.js';
import type { KeychainStore } from './keychain.store.js';
import type { PeerAnswer } from './peer-client.js';

/** A member asks its home at most this often while it needs a seat (a failure waits as long). */
export const SEAT_ASK_EVERY_MS = 60 * 60_000;
/** A member renews its grant this long before it ends. */
export const SEAT_RENEW_BEFORE_MS = 10 * 86_400_000;

/** What the home's vouch answers (licence/installs/vouch-answer.ts), as far as a member needs. */
export interface SeatAnswer {
  readonly result: 'granted' | 'manual' | 'pending';
  readonly why: string;
  readonly text?: string;
  /** Set for an offline grant; null for a serial of the licence the authority issued. */
  readonly valid_until?: string | null;
}

/** On the home: /peer/licence from a member it seated. */
export function createLicenceSeatHome(deps: {
  readonly store: KeychainStore;
  readonly carries: () => boolean;
  readonly vouch: (input: { text: string; code: string }, actor: string) => Promise<SeatAnswer>;
}) {
  return {
    async vouchFor(fp: string, body: Record<string, unknown> | null): Promise<SeatAnswer> {
      const st = deps.store.state();
      if (st?.role !== 'home')
        throw new ConflictError('not_home', 'this install is not the home', { why: 'role' });
      if (!deps.carries())
        throw new ConflictError('licence_not_carried', 'the home does not carry the licence', {
          why: 'scope',
        });
      const m = deps.store.member(fp);
      if (m?.licensed !== 1)
        throw new ConflictError(
          'not_seated',
          'this member holds no licence seat here: an admin approves it on the home (POST /v1/keychain/joins/approve)',
          { why: 'seat' },
        );
      const text = body?.['text'];
      const code = body?.['code'];
      if (typeof text !== 'string' || typeof code !== 'string')
        throw new ConflictError('bad_request', 'text and code are required', { why: 'body' });
      return deps.vouch({ text, code }, `peer:${fp}`);
    },
  };
}

interface MemberDeps {
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly callHome: (path: string, payload: unknown) => Promise<PeerAnswer> | null;
  /** Whether this install runs under no licence that covers it, or under a grant ending soon. */
  readonly needsSeat: (renewBeforeMs: number) => boolean;
  /** POST /v1/licence/installs/ask here: the request text and its code. */
  readonly ask: () => Promise<{ text: string; code: string }>;
  /** Installs what the home answered: a grant, or a serial listing this install. */
  readonly install: (answer: SeatAnswer, actor: string) => Promise<void>;
}

/** On a member: after each pull, a licence seat from the home when it needs one. */
export function createLicenceSeatMember(deps: MemberDeps) {
  const { store, clock } = deps;
  let lastAsk = -Infinity;
  let lastWhy: string | null = null;
  // What the home said at the last pull: it vouches for this member now (seated, carried,
  // and its licence lets it vouch). Nothing is asked otherwise: no request to no purpose.
  let offered = false;

  /** A failure recorded once until another comes (the pull repeats every 30 s). */
  async function refused(why: string): Promise<void> {
    if (why === lastWhy) return;
    lastWhy = why;
    await deps.writer.transact(() =>
      deps.ledger.append({
        type: 'keychain.part_rejected',
        actor: 'system',
        data: { part: 'licence', version: 0, reason: why.slice(0, 500) },
      }),
    );
  }

  return {
    /**
     * Asks the home for a seat when this install needs one and the home offers it (as its
     * last pull answer said, unless `seatOffered` says anew); why not, or null when done.
     */
    async afterPull(opts: { seatOffered?: boolean; force?: boolean } = {}): Promise<string | null> {
      if (opts.seatOffered !== undefined) offered = opts.seatOffered;
      const force = opts.force === true;
      const st = store.state();
      if (st?.role !== 'member') return 'not a member';
      const carried = JSON.parse(st.carried) as string[];
      const owned = JSON.parse(st.owned) as string[];
      if (!carried.includes('licence') || owned.includes('licence')) return 'not carried';
      if (!deps.needsSeat(SEAT_RENEW_BEFORE_MS)) return null;
      if (!offered) {
        const why =
          'the home offers this member no licence seat: an admin approves its seat on the home (POST /v1/keychain/joins/approve), and the home must hold a signed licence that lets it vouch';
        await refused(why);
        return why;
      }
      if (!force && clock.now() - lastAsk < SEAT_ASK_EVERY_MS) return 'asked lately';
      lastAsk = clock.now();
      let asked: { text: string; code: string };
      try {
        asked = await deps.ask();
      } catch (err) {
        const why = `this install cannot ask for a seat: ${(err as Error).message}`;
        await refused(why);
        return why;
      }
      const answer = await deps.callHome('/v1/keychain/peer/licence', asked);
      const body = (answer?.kind === 'answered' ? answer.body : null) as
        (SeatAnswer & { error?: string; message?: string }) | null;
      const why =
        answer === null
          ? 'the roster holds no address for the home'
          : answer.kind !== 'answered'
            ? `the home cannot be reached: ${answer.why}`
            : answer.status !== 200
              ? `the home refused: ${body?.message ?? String(answer.status)}`
              : body?.text === undefined || body.result === 'manual' || body.result === 'pending'
                ? `the home could not vouch: ${body?.why ?? 'no text'}`
                : null;
      if (why !== null || body === null) {
        await refused(why ?? 'no answer');
        return why;
      }
      try {
        await deps.install(body, `keychain:${st.home_fp}`);
      } catch (err) {
        const failed = `the home's answer was refused here: ${(err as Error).message}`;
        await refused(failed);
        return failed;
      }
      lastWhy = null;
      return null;
    },
  };
}
export type LicenceSeatMember = ReturnType<typeof createLicenceSeatMember>;
