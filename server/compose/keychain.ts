// The keychain's parts wired to the runtime: identity (the install key and the agreement
// key), the service, the member's pull and the home's health watch on timers, a joining
// site's enrolment loop, and the refused peer calls recorded, one per address and code
// every 5 minutes so that a flood cannot flood the ledger.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { loadOrCreateAgreementKey } from '../ledger/index.js';
import {
  attemptJoin,
  createHandover,
  createTakeover,
  TAKEOVER_SILENCE_MS,
  HOME_ALIVE_MS,
  createDivergentCopies,
  createHealthWatch,
  createKeychainService,
  createMemberSync,
  createPairingHome,
  createPairingJoiner,
  createPartsHome,
  derivePartKey,
  createSealing,
  type PartAdapter,
  exportAgreementPublic,
  exportSigPub,
  createLicenceSeatHome,
  createLicenceSeatMember,
  importSigPub,
  keychainPeerRoutes,
  type LicenceSeatMember,
  type PeerAnswer,
  keychainRoutes,
  PULL_EVERY_S,
  runJoin,
  type JoinState,
} from '../keychain/index.js';
import type { Logger } from 'pino';
import type { BrandingService } from '../branding/index.js';
import type { PolicyService } from '../policy/index.js';
import type { DoctorCheck } from '../doctor/index.js';
import { installPubOf } from '../licence/index.js';
import type { Runtime } from './runtime.js';

const REFUSAL_EVERY_MS = 5 * 60_000;
const HEALTH_EVERY_MS = 30_000;
const PAIRING_POLL_MS = 3_000;

export interface KeychainOptions {
  /** Tests shorten the member's pull and the health watch. */
  readonly pullEveryMs?: number;
  readonly healthEveryMs?: number;
  readonly pairingPollMs?: number;
  /** The home silence a take-over needs (15 minutes; tests shorten it). */
  readonly takeoverSilenceMs?: number;
  /** How lately a member must have heard its home to refuse a take-over (3 minutes). */
  readonly homeAliveMs?: number;
}

/** The trial, and licences whose features include the keychain (Enterprise, Strategic). */
function licenceRefuses(rt: Runtime): string | null {
  const v = rt.licence.view();
  if (v === null) return 'no licence is installed';
  if (!v.valid) return `the licence is not in force (${v.why ?? 'not valid'})`;
  if (v.kind === 'trial') return null;
  return rt.licence.current()?.licence.features.keychain === true
    ? null
    : 'the licence does not include the keychain (Enterprise and Strategic do)';
}

/** Why the licence has no install seat left for a paired member, or null when it has one. */
function noSeat(rt: Runtime): string | null {
  const v = rt.licence.view();
  if (v === null) return 'no licence is installed';
  if (v.install_limit !== null && v.installs >= v.install_limit)
    return `all ${String(v.install_limit)} installs of the licence are in use`;
  return null;
}

/**
 * Where a part is changed when this install is a member whose home carries it ("DC A
 * (ABCDEFGHIJKL…)"), or null: the domains refuse their own writes with keychain_managed.
 */
export function carrierOf(rt: Runtime, part: string): string | null {
  const st = rt.keychainStore.state();
  if (st?.role !== 'member' || !(JSON.parse(st.carried) as string[]).includes(part)) return null;
  if ((JSON.parse(st.owned) as string[]).includes(part)) return null;
  const home = rt.keychainStore.member(st.home_fp);
  return `the home ${home?.label ?? 'install'} (${st.home_fp.slice(0, 12)}…)`;
}

/** A domain's side of a carried part: its document, and taking the home's. */
interface CarriedDomain {
  document(): unknown;
  applyCarried(doc: unknown, actor: string): void;
  /** Whether this install holds the carried document already (PartAdapter.holds). */
  holds?(doc: unknown): boolean;
}

/** The domains whose documents the keychain carries. */
export interface CarriedDomains {
  readonly policy: Pick<PolicyService, 'document' | 'applyCarried'>;
  readonly branding: Pick<BrandingService, 'document' | 'applyCarried'>;
  /** The impact figures. */
  readonly numbers: CarriedDomain;
  readonly mail: CarriedDomain;
  readonly connections: CarriedDomain;
  /** Single sign-on and who may sign in (signinPart). */
  readonly signin: CarriedDomain;
  /** People and teams (peoplePart). */
  readonly people: CarriedDomain;
}

/** What the people domain lends the "people" part. */
interface PeopleDomain {
  document(removed: { people: string[]; teams: string[] }): unknown;
  applyCarried(doc: unknown, actor: string): void;
  holdsCarried(doc: unknown): boolean;
}

/**
 * The "people" part: the home's people and teams, and those it deleted (from its ledger,
 * where a deletion is the only trace), so members disable them too.
 */
export function peoplePart(rt: Runtime, people: PeopleDomain): CarriedDomain {
  // The home computes its documents at every member's pull: the ledger only grows, so the
  // deletions are read once and then only those after the last one seen.
  const removed = { people: [] as string[], teams: [] as string[] };
  let after = 0;
  const deleted = () => {
    for (;;) {
      const page = rt.reader.list({
        type: 'access.user_deleted,access.team_deleted',
        order: 'asc',
        limit: 1000,
        after_seq: after,
      }).events;
      for (const e of page) {
        if (e.type === 'access.user_deleted') removed.people.push(String(e.data['email']));
        else removed.teams.push(String(e.data['name']));
        after = e.seq;
      }
      if (page.length < 1000) return removed;
    }
  };
  return {
    document: () => people.document(deleted()),
    applyCarried: (doc, actor) => {
      people.applyCarried(doc, actor);
    },
    holds: (doc) => people.holdsCarried(doc),
  };
}

/** The "signin" part: two domains' documents, single sign-on and who may sign in. */
export function signinPart(
  sso: { document(): unknown; applyCarried(doc: unknown, actor: string): void },
  people: {
    accessDocument(): unknown;
    applyCarriedAccess(doc: unknown, actor: string): void;
  },
): CarriedDomain {
  return {
    document: () => ({ sso: sso.document(), access: people.accessDocument() }),
    applyCarried: (doc, actor) => {
      const d = doc as { sso?: unknown; access?: unknown } | null;
      sso.applyCarried(d?.sso ?? null, actor);
      people.applyCarriedAccess(d?.access ?? null, actor);
    },
  };
}

/** The events that change each carried part's document here (comma-separated prefixes). */
const PART_EVENTS: Record<PartAdapter['part'], string> = {
  connections: 'config.connector_set,config.connector_removed',
  mail: 'config.mail_set',
  signin: 'config.sso_set,access.access_settings_set',
  people: 'access.user_,access.role_changed,access.team_',
  policy: 'policy.set',
  branding: 'config.branding_set',
  numbers: 'config.impact_set',
};

function carried(rt: Runtime, part: PartAdapter['part'], domain: CarriedDomain): PartAdapter {
  return {
    part,
    lastChange: () => {
      const e = rt.reader.list({ type: PART_EVENTS[part], order: 'desc', limit: 1 }).events[0];
      return e === undefined ? null : { seq: e.seq, actor: e.actor };
    },
    // Policy and branding answer {doc, sha256}; the others their document itself.
    document: () => {
      const d = domain.document();
      return part === 'policy' || part === 'branding' ? (d as { doc: unknown }).doc : d;
    },
    apply: (doc, actor) => {
      domain.applyCarried(doc, actor);
    },
    ...(domain.holds !== undefined && { holds: (doc: unknown) => domain.holds?.(doc) ?? false }),
  };
}

/**
 * A member's licence seat from its home (licence-seat.ts): asked as a new install asks, and
 * installed as a pasted grant (or a serial the authority issued listing this install) is.
 */
function licenceSeatMember(
  rt: Runtime,
  callHome: (path: string, payload: unknown) => Promise<PeerAnswer> | null,
): LicenceSeatMember {
  return createLicenceSeatMember({
    store: rt.keychainStore,
    ledger: rt.ledger,
    writer: rt.writer,
    clock: rt.clock,
    callHome,
    needsSeat: (renewBeforeMs) => {
      const v = rt.licence.view();
      if (v?.kind !== 'licence' || !v.valid || !v.on_licence) return true;
      const until = v.vouched_until === null ? null : Date.parse(v.vouched_until);
      return until !== null && until - rt.licence.effectiveNow() < renewBeforeMs;
    },
    ask: async () => {
      const asked = await rt.exchange.ask({ purpose: 'add' }, 'keychain');
      return { text: asked.text, code: asked.code };
    },
    install: async (answer, actor) => {
      const text = answer.text ?? '';
      if (answer.valid_until === null) await rt.licence.installFrom(text, 'authority', actor);
      else await rt.exchange.acceptGrant(text, { actor });
    },
  });
}

/** The grant this home vouched for a member that is gone: its seat is free again. */
async function releaseSeat(rt: Runtime, log: Logger, sigPub: string, actor: string) {
  const key = importSigPub(sigPub);
  if (key === null) return;
  const pub = installPubOf(key);
  for (const g of rt.exchange.grantsFor(pub))
    await rt.exchange.remove(g.fingerprint, actor).catch((err: unknown) => {
      log.warn({ err }, 'keychain: could not free the licence seat of a removed member');
    });
}

export function buildKeychain(
  rt: Runtime,
  log: Logger,
  domains: CarriedDomains,
  options: KeychainOptions = {},
) {
  const { config } = rt;
  if (rt.identityKey === null) throw new Error('the keychain needs the install key');
  const agreementKey = loadOrCreateAgreementKey(config.dataDir, config.fips);
  const identity = {
    fingerprint: rt.keyFingerprint,
    key: rt.identityKey,
    sigPub: exportSigPub(rt.identityKey),
    kxPub: exportAgreementPublic(agreementKey),
  };
  const deps = { store: rt.keychainStore, ledger: rt.ledger, writer: rt.writer, clock: rt.clock };
  const adapters: PartAdapter[] = [
    carried(rt, 'connections', domains.connections),
    carried(rt, 'mail', domains.mail),
    carried(rt, 'signin', domains.signin),
    carried(rt, 'people', domains.people),
    carried(rt, 'policy', domains.policy),
    carried(rt, 'branding', domains.branding),
    carried(rt, 'numbers', domains.numbers),
  ];
  const parts = createPartsHome({
    ...deps,
    adapters,
    key: identity.key,
    partKey: (keychainId, generation) => derivePartKey(agreementKey, keychainId, generation),
  });
  const keychain = createKeychainService({
    ...deps,
    identity,
    licenceRefuses: () => licenceRefuses(rt),
    parts,
    ledgerHead: () => rt.ledger.head(),
    hashAt: (seq) => rt.ledgerStore.hashAt(seq),
    seatOffered: (fp) => {
      const st = rt.keychainStore.state();
      return (
        st !== null &&
        !(JSON.parse(st.skip) as string[]).includes('licence') &&
        rt.keychainStore.member(fp)?.licensed === 1 &&
        rt.exchange.vouchable().allowed
      );
    },
    released: (sigPub, actor) => releaseSeat(rt, log, sigPub, actor),
  });
  const sealing = createSealing({ ...deps, identity, adapters, fips: config.fips });
  const handover = createHandover({
    ...deps,
    identity,
    publish: () => parts.publish(),
    divergent: createDivergentCopies({ ...deps, dataDir: config.dataDir, adapters }),
  });
  const sync = createMemberSync({
    ...deps,
    agreementKey,
    handover,
    identity,
    adapters,
    forget: (reason, informed) => keychain.forget(reason, informed),
    ledgerHead: () => rt.ledger.head(),
    hashAt: (seq) => rt.ledgerStore.hashAt(seq),
    afterPull: async (seatOffered) => {
      await seat.afterPull({ seatOffered }).catch((err: unknown) => {
        log.warn({ err }, 'keychain: asking the home for a licence seat failed');
      });
    },
  });
  const seat = licenceSeatMember(rt, (path, payload) => sync.callHome(path, payload));
  const health = createHealthWatch({ ...deps, self: identity.fingerprint });
  const takeover = createTakeover({
    ...deps,
    identity,
    handover,
    silence: () => sync.silence(),
    silenceMs: options.takeoverSilenceMs ?? TAKEOVER_SILENCE_MS,
    homeAliveMs: options.homeAliveMs ?? HOME_ALIVE_MS,
    publish: () => parts.publish(),
  });
  /**
   * The home's health watch, and whether a member now follows a newer home (take-over). One
   * round at a time: asking offline members can outlast the 30 s between rounds.
   */
  let round: Promise<number> | null = null;
  const checkHome = (onlySilent: boolean): Promise<number> => {
    round ??= (async () => {
      const n = await health.check();
      await takeover.askMembers(onlySilent);
      return n;
    })().finally(() => {
      round = null;
    });
    return round;
  };
  const pairingDeps = { ...deps, pairing: rt.keychainStore.pairing, identity };
  const pairingHome = createPairingHome({ ...pairingDeps, keychain, noSeat: () => noSeat(rt) });
  const joiner = createPairingJoiner({
    ...pairingDeps,
    address: config.http.consoleUrl,
    agreementKey,
    onMember: () => {
      log.info('keychain: paired with the home');
      sync.pull().catch((err: unknown) => {
        log.warn({ err }, 'keychain: the first pull from the home failed');
      });
    },
  });
  let join: JoinState | null = null;
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];

  const refusedAt = new Map<string, number>();
  function onRefused(f: {
    code: string;
    address: string;
    path: string;
    keyid: string | null;
  }): void {
    const key = `${f.address} ${f.code}`;
    const now = rt.clock.now();
    if ((refusedAt.get(key) ?? -Infinity) > now - REFUSAL_EVERY_MS) return;
    if (refusedAt.size > 10_000) refusedAt.clear();
    refusedAt.set(key, now);
    rt.writer
      .transact(() =>
        rt.ledger.append({
          type: 'keychain.peer_auth_failed',
          actor: 'system',
          data: {
            code: f.code,
            address: f.address.slice(0, 100),
            path: f.path.slice(0, 200),
            keyid: f.keyid === null ? null : f.keyid.slice(0, 64),
          },
        }),
      )
      .catch((err: unknown) => {
        log.warn({ err }, 'could not record a refused keychain call');
      });
  }

  async function joinLoop(url: string, siteKey: string): Promise<void> {
    join = await runJoin({
      attempt: () =>
        attemptJoin({
          ...deps,
          url,
          siteKey,
          label: config.instance,
          // Where the keychain reaches this install (a handover makes it the home).
          address: config.http.consoleUrl,
          identity,
          agreementKey,
        }),
      clock: rt.clock,
      sleep: (ms) => sleep(ms, undefined, { ref: false }),
      stopped: () => stopped,
      onState: (s) => {
        join = s;
        if (s.state === 'trying')
          log.warn(
            { attempts: s.attempts, why: s.last_error },
            'keychain: the home did not take this site yet; trying again in 30 s',
          );
        if (s.state === 'enrolled') {
          log.info('keychain: enrolled with the home');
          // The parts the home carries, at once rather than at the first timed pull.
          sync.pull().catch((err: unknown) => {
            log.warn({ err }, 'keychain: the first pull from the home failed');
          });
        }
        if (s.state === 'failed' || s.state === 'gave_up')
          log.error({ why: s.last_error }, 'keychain: joining the home stopped');
      },
    });
    if (join.state === 'failed')
      await rt.writer
        .transact(() =>
          rt.ledger.append({
            type: 'keychain.join_failed',
            actor: 'system',
            data: {
              reason: join?.state === 'failed' ? join.last_error.slice(0, 300) : 'failed',
              address: url,
            },
          }),
        )
        .catch(() => undefined);
  }

  /** SVC_KEYCHAIN_FILE with its passphrase: applied once per version, at start. */
  async function applyFile(file: string, passphrase: string | null): Promise<void> {
    if (passphrase === null) {
      log.error(
        { file },
        'keychain: SVC_KEYCHAIN_FILE is set without SVC_KEYCHAIN_PASSPHRASE(_FILE); the file is not applied',
      );
      return;
    }
    try {
      const r = await sealing.unseal(
        readFileSync(file, 'utf8'),
        passphrase,
        'system',
        'SVC_KEYCHAIN_FILE',
      );
      if (r.skipped !== null)
        log.info(
          { file, version: r.content_version },
          'keychain: the sealed file was applied before',
        );
      else
        log.info(
          { file, version: r.content_version, applied: r.applied, left: r.left },
          'keychain: sealed file applied',
        );
    } catch (err) {
      log.error({ file, why: (err as Error).message }, 'keychain: the sealed file was not applied');
    }
  }

  /** Doctor, Keychain / witnesses: a peer caught with a ledger gone back or rewritten fails. */
  const witnessCheck: DoctorCheck = {
    area: 'Keychain',
    name: 'Witnesses',
    run() {
      const st = rt.keychainStore.state();
      if (st === null) return { status: 'ok', detail: 'this install is in no keychain', hint: '' };
      const all = rt.keychainStore
        .witnesses()
        .filter((w) => w.fingerprint !== identity.fingerprint);
      const caught = all.filter((w) => w.mismatch !== null);
      const name = (fp: string) =>
        `${rt.keychainStore.member(fp)?.label ?? 'an install'} (${fp.slice(0, 12)}…)`;
      if (caught.length > 0)
        return {
          status: 'fail',
          detail: caught
            .map(
              (w) => `${name(w.fingerprint)}: ${w.mismatch ?? ''} (caught ${w.mismatch_at ?? ''})`,
            )
            .join('; '),
          hint: "that install's ledger was restored from an older copy or rewritten: find out why (backups, the host), verify its ledger, and remove it from the keychain if it cannot be trusted",
        };
      return {
        status: 'ok',
        detail:
          all.length === 0
            ? 'no peer witnessed yet (at the first pull)'
            : `${String(all.length)} ${all.length === 1 ? 'peer' : 'peers'} witnessed, none went back: ${all.map((w) => `${name(w.fingerprint)} at seq ${String(w.seq)}`).join(', ')}`,
        hint: '',
      };
    },
  };

  return {
    keychain,
    identity,
    witnessCheck,
    joinState: () => join,
    start(): void {
      const url = config.keychain.join;
      const siteKey = config.keychain.siteKey;
      if (url !== null && siteKey !== null && rt.keychainStore.state() === null)
        void joinLoop(url, siteKey.reveal());
      const file = config.keychain.file;
      const passphrase = config.keychain.passphrase;
      if (file !== null) void applyFile(file, passphrase?.reveal() ?? null);
      const pull = setInterval(
        () => {
          if (rt.keychainStore.state()?.role !== 'member') return;
          sync.pull().catch((err: unknown) => {
            log.warn({ err }, 'keychain: the pull from the home failed');
          });
        },
        options.pullEveryMs ?? PULL_EVERY_S * 1000,
      );
      const watch = setInterval(() => {
        checkHome(true).catch((err: unknown) => {
          log.warn({ err }, 'keychain: the health watch failed');
        });
      }, options.healthEveryMs ?? HEALTH_EVERY_MS);
      // A joining install asks its home how its pairing stands while one is open.
      const pairingPoll = setInterval(() => {
        joiner.poll().catch((err: unknown) => {
          log.warn({ err }, 'keychain: asking the home about pairing failed');
        });
      }, options.pairingPollMs ?? PAIRING_POLL_MS);
      for (const t of [pull, watch, pairingPoll]) t.unref();
      timers.push(pull, watch, pairingPoll);
    },
    stop(): void {
      stopped = true;
      for (const t of timers) clearInterval(t);
    },
    async routes(v1: FastifyInstance): Promise<void> {
      await v1.register(keychainRoutes, {
        keychain,
        // Sync now asks for a licence seat at once (a seat approved a moment ago, say); the
        // pulls every 30 s ask at most hourly.
        pull: async () => {
          const result = await sync.pull();
          if (result.ok) await seat.afterPull({ force: true });
          return result;
        },
        health: () => checkHome(false),
        leave: () => sync.leave(),
        renameSelf: (label) => sync.renameSelf(label),
        sealing,
        pairing: pairingHome,
        joiner,
        handover,
        takeover,
      });
      await v1.register(keychainPeerRoutes, {
        keychain,
        pairing: pairingHome,
        handover,
        takeover,
        licenceSeat: createLicenceSeatHome({
          store: rt.keychainStore,
          carries: () => {
            const st = rt.keychainStore.state();
            return st !== null && !(JSON.parse(st.skip) as string[]).includes('licence');
          },
          vouch: (input, actor) => rt.exchange.vouch(input, actor),
        }),
        store: rt.keychainStore,
        clock: rt.clock,
        identity,
        agreementKey,
        onRefused,
      });
    },
  };
}
