// The licence in force (licence.md §3.3, §3.8, §3.9): the offline trial, or a signed licence
// installed through the API or mounted as SVC_LICENCE. Every source goes through one verifier;
// a refusal leaves the licence in force as it was and is recorded. Decisions use effective
// time, so a clock turned back extends nothing. Expiry degrades in stages and never stops
// alerts from being recorded before the grace ends.
import type { Logger } from 'pino';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import type { LicencePayload, VerifiedLicence } from './document/licence-doc.js';
import { verifyLicence } from './document/licence-doc.js';
import {
  EMPTY_REVOCATIONS,
  revocationOf,
  verifyRevocations,
  type RevocationList,
} from './document/revocations-doc.js';
import {
  certifiedStatements,
  readEnvelope,
  type KeyStatement,
  type TrustContext,
  type TrustedRoot,
} from './document/trust.js';
import {
  STRICT_UNCONFIRMED_MS,
  effectiveCheckMode,
  unconfirmedSince,
  type CheckMode,
} from './check-mode.js';
import { createEffectiveTime } from './effective-time.js';
import {
  CLOCK_FILE,
  LICENCE_COPY,
  REVOCATIONS_COPY,
  bundledRevocationsFile,
  dataFile,
  isPresent,
  readDocumentFile,
  removeDocumentCopy,
  writeDocumentCopy,
} from './licence-files.js';
import type { LicenceEvents } from './licence.events.js';
import type { LicenceStore, VouchedRow } from './licence.store.js';
import { lossesOf } from './losses.js';
import { stageOf, stageOperates, type LicenceStage } from './stages.js';
import { TRUSTED_ROOTS } from './trust/trusted-roots.js';

/** The trial on offer: 90 days at present (normally 30), 50 services, up to 10 installs. */
export const TRIAL = {
  tier: 'trial',
  services: 50,
  install_limit: 10,
  days: 90,
  grace_days: 14,
} as const;
const DAY_MS = 86_400_000;
/** How long a superseded serial keeps working once the newer serial is known (§3.9). */
export const SUPERSEDED_DAYS = 14;

export interface LicenceView {
  readonly kind: 'trial' | 'licence';
  readonly tier: string;
  readonly customer: string | null;
  readonly licence_id: string | null;
  readonly serial: number | null;
  readonly source: string;
  /** the licensed number of services, null for unlimited */
  readonly services: number | null;
  /** the services counted now (a signal in the last 30 days, or pinned); null when not counted */
  readonly services_used: number | null;
  readonly installs: number;
  readonly install_limit: number | null;
  readonly started_at: string;
  readonly expires_at: string | null;
  readonly grace_ends_at: string | null;
  readonly stage: LicenceStage;
  readonly in_grace: boolean;
  readonly valid: boolean;
  /** why the licence does not let the service operate, when it does not */
  readonly why: string | null;
  readonly days_left: number | null;
  /** the confirmation mode in force: SVC_LICENCE_CHECK raised to the licence's min_mode */
  readonly check: CheckMode;
  /** the last confirmation by the licence authority */
  readonly confirmed_at: string | null;
  /** when the licence in force was installed (the offline trial: when it started) */
  readonly installed_at: string | null;
  readonly verified: boolean;
  readonly on_licence: boolean;
  /** until when an offline grant from an install on the licence lets this one run (§3.7) */
  readonly vouched_until: string | null;
  readonly site: string | null;
  readonly file_mounted: string | null;
}

export interface LicenceSettings {
  readonly check: CheckMode;
  readonly fips: boolean;
  /** SVC_LICENCE: a licence file here makes the licence file-managed */
  readonly licenceFile: string;
  readonly dataDir: string;
  /** SVC_REVOCATION_FILE, or null for the list bundled with the build */
  readonly revocationFile: string | null;
  readonly clockToleranceS: number;
}

interface Deps {
  readonly store: LicenceStore;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
  readonly settings: LicenceSettings;
  /** this install's fingerprint, null when the host gives none */
  readonly fingerprint: string | null;
  /** the newest ledger event's time at start (ms, 0 when empty) */
  readonly newestEventMs: number;
  readonly log: Pick<Logger, 'warn' | 'info'>;
  /** tests may pass their own; the service uses the roots compiled into the build */
  readonly roots?: readonly TrustedRoot[];
  /** the services counted now (coverage.ts), for the view */
  readonly servicesUsed?: () => number;
}

/** An offline grant from an install on the licence (installs/grant.ts checked it). */
export type Vouch = Pick<
  VouchedRow,
  'req_id' | 'licence_id' | 'licence_serial' | 'granted_by' | 'role' | 'valid_until'
>;

interface Active {
  readonly verified: VerifiedLicence;
  readonly text: string;
}

export interface InstallOptions {
  readonly actor: string;
  readonly acknowledge?: boolean;
}

function textOf(input: unknown): string {
  return typeof input === 'string' ? input : JSON.stringify(input);
}

export function createLicenceService(deps: Deps) {
  const { store, ledger, writer, settings } = deps;
  const roots = deps.roots ?? TRUSTED_ROOTS;
  const copyFile = dataFile(settings.dataDir, LICENCE_COPY);
  const revocationsCopy = dataFile(settings.dataDir, REVOCATIONS_COPY);
  const time = createEffectiveTime({
    clock: deps.clock,
    file: dataFile(settings.dataDir, CLOCK_FILE),
    toleranceS: settings.clockToleranceS,
    newestEventMs: deps.newestEventMs,
  });
  let active: Active | null = null;
  let revocations: RevocationList = EMPTY_REVOCATIONS;
  /** the key statements the revocation list in force carries (it may carry a trial key's) */
  let revocationKeys: readonly unknown[] = [];
  const keysOf = (text: string): readonly unknown[] => {
    const env = readEnvelope(text);
    return typeof env === 'string' ? [] : (env.keys ?? []);
  };
  /** the mounted file's last text seen, so an unchanged file is not re-judged every minute */
  let mountedSeen: string | null = null;
  /** set while the clock is behind the mark, so one backwards move is recorded once */
  let clockBehind = false;
  let lastValid: boolean | null = null;
  // One licence change at a time (install, remove, the minute tick): two racing installs must
  // not both pass the rollback check, nor overwrite each other's copy on disk.
  let queue: Promise<unknown> = Promise.resolve();
  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = queue.then(work, work);
    queue = run.catch(() => undefined);
    return run;
  }

  // What was recorded before this process started, read without writing anything, so that
  // read-only tools (doctor, preflight) see the licence in force as the service does.
  function loadRecordedSync(): void {
    const stored = readDocumentFile(revocationsCopy);
    if ('text' in stored) {
      const v = verifyRevocations(stored.text, {
        roots,
        revokedKids: new Set(),
        fips: settings.fips,
      });
      if (v.ok) {
        revocations = v.list;
        revocationKeys = keysOf(stored.text);
      } else {
        deps.log.warn(
          { check: v.check },
          `the stored revocation list ${revocationsCopy} is not valid (${v.detail}); keeping none`,
        );
      }
    }
    const current = store.current();
    const copy = readDocumentFile(copyFile);
    if (current === null || !('text' in copy)) return;
    const verdict = verifyLicence(copy.text, trust());
    if (verdict.ok && verdict.sha256 === current.sha256)
      active = { verified: verdict, text: copy.text };
  }

  const trust = (): TrustContext => ({
    roots,
    revokedKids: new Set(revocations.keys.map((k) => k.kid)),
    fips: settings.fips,
  });
  const mounted = (): boolean => isPresent(settings.licenceFile);

  const listsThisInstall = (l: LicencePayload): boolean =>
    deps.fingerprint !== null && l.installs.some((i) => i.fingerprint === deps.fingerprint);

  /** The grant this install runs under for `l`, while it holds (a serial listing it supersedes it). */
  function vouchedFor(l: LicencePayload, grant: Vouch | null = store.vouched()): Vouch | null {
    if (grant === null || grant.licence_id !== l.licence_id || listsThisInstall(l)) return null;
    return time.now() < Date.parse(grant.valid_until) ? grant : null;
  }

  function coversThisInstall(l: LicencePayload, grant?: Vouch): boolean {
    return l.site !== null || listsThisInstall(l) || vouchedFor(l, grant) !== null;
  }

  /** Why a verified licence cannot be installed here, or null. */
  function refusalOf(v: VerifiedLicence, grant?: Vouch): { check: string; detail: string } | null {
    const l = v.licence;
    const r = revocationOf(revocations, l.licence_id, l.serial);
    if (r?.reason === 'revoked')
      return { check: 'revoked', detail: `licence ${l.licence_id} has been revoked` };
    if (r?.reason === 'superseded') {
      return {
        check: 'superseded',
        detail: `serial ${String(l.serial)} of ${l.licence_id} has been superseded by a newer one`,
      };
    }
    if (!coversThisInstall(l, grant)) {
      return {
        check: 'not_for_this_install',
        detail: `this install (${deps.fingerprint ?? 'no fingerprint'}) is not listed on the licence; ask to be added (POST /v1/licence/installs/ask)`,
      };
    }
    const highest = store.highestSerial(l.licence_id);
    const current = store.current();
    if (highest !== null && l.serial < highest) {
      return {
        check: 'rollback',
        detail: `serial ${String(l.serial)} is older than serial ${String(highest)} already seen`,
      };
    }
    if (
      highest !== null &&
      l.serial === highest &&
      current?.licence_id === l.licence_id &&
      current.sha256 !== v.sha256
    ) {
      return {
        check: 'rollback',
        detail: `serial ${String(l.serial)} was already installed with different contents`,
      };
    }
    return null;
  }

  function recordRefusal(
    source: 'api' | 'file' | 'grant' | 'redeem',
    check: string,
    detail: string,
    sha256: string | null,
  ) {
    return writer.transact(() => {
      ledger.append({
        type: 'licence.refused',
        actor: 'system',
        data: { source, check, detail, sha256 },
        reason: detail,
      });
    });
  }

  /** Appends installed or replaced for `v` (inside a writer job). */
  function appendInstalled(
    v: VerifiedLicence,
    source: 'api' | 'file' | 'grant' | 'redeem' | 'authority',
    actor: string,
    losses: readonly string[],
  ) {
    const l = v.licence;
    const headline = {
      source,
      licence_id: l.licence_id,
      serial: l.serial,
      sha256: v.sha256,
      tier: l.tier,
      customer: l.customer.name,
      expires_at: l.expires_at,
    };
    const previous = store.current();
    if (previous === null) {
      ledger.append({ type: 'licence.installed', actor, data: headline });
    } else {
      ledger.append({
        type: 'licence.replaced',
        actor,
        data: {
          ...headline,
          previous: {
            licence_id: previous.licence_id,
            serial: previous.serial,
            sha256: previous.sha256,
          },
          acknowledged_losses: [...losses],
        },
      });
    }
  }

  /** Verifies and, when it may be, installs; throws the 400/409 the API answers. */
  async function accept(
    input: unknown,
    source: 'api' | 'file' | 'grant' | 'redeem' | 'authority',
    opts: InstallOptions,
    grant?: Vouch,
  ) {
    const text = textOf(input);
    const verdict = verifyLicence(input, trust());
    const auditSource = source === 'authority' ? 'api' : source;
    if (!verdict.ok) {
      await recordRefusal(auditSource, verdict.check, verdict.detail, null);
      throw new InvalidInputError(
        'licence_refused',
        `the licence was refused (${verdict.check}): ${verdict.detail}`,
        {
          field: 'licence',
          check: verdict.check,
        },
      );
    }
    const refusal = refusalOf(verdict, grant);
    if (refusal !== null) {
      await recordRefusal(auditSource, refusal.check, refusal.detail, verdict.sha256);
      throw new InvalidInputError(
        'licence_refused',
        `the licence was refused (${refusal.check}): ${refusal.detail}`,
        {
          field: 'licence',
          check: refusal.check,
        },
      );
    }
    const current = store.current();
    if (current?.sha256 === verdict.sha256 && active !== null && grant === undefined)
      return { changed: false };
    const losses = active === null ? [] : lossesOf(active.verified.licence, verdict.licence);
    if (losses.length > 0 && opts.acknowledge !== true) {
      throw new ConflictError(
        'would_lose',
        `the new licence gives up ${losses.join('; ')}: send acknowledge true to install it`,
        {
          losses,
        },
      );
    }
    // The copy first: a crash before the event leaves a verified copy that start-up records.
    writeDocumentCopy(copyFile, text);
    await writer.transact(() => {
      if (grant !== undefined)
        ledger.append({
          type: 'licence.install.grant_accepted',
          actor: opts.actor,
          data: { ...grant },
          reason: `vouched for by ${grant.granted_by} until ${grant.valid_until}`,
        });
      if (current?.sha256 !== verdict.sha256) appendInstalled(verdict, source, opts.actor, losses);
    });
    active = { verified: verdict, text };
    await settle(opts.actor);
    return { changed: true };
  }

  /** The view of the licence in force at effective time. */
  function view(): LicenceView | null {
    const tEff = time.now();
    const file = mountedSeen !== null ? settings.licenceFile : null;
    if (active !== null) {
      const l = active.verified.licence;
      const st = stageOf(l, tEff);
      const mode = effectiveCheckMode(settings.check, l);
      const why = whyNotValid(l, st.stage, tEff, mode);
      return {
        kind: 'licence',
        tier: l.tier,
        customer: l.customer.name,
        licence_id: l.licence_id,
        serial: l.serial,
        source: store.current()?.source ?? 'api',
        services: l.limits.services,
        services_used: deps.servicesUsed?.() ?? null,
        installs: l.installs.length,
        install_limit: l.limits.installs,
        started_at: l.not_before,
        expires_at: l.expires_at,
        grace_ends_at: st.grace_ends_at,
        stage: st.stage,
        in_grace: st.stage === 'in_grace',
        valid: why === null,
        why,
        days_left: st.days_left,
        check: mode,
        confirmed_at: store.check()?.last_confirmed_at ?? null,
        installed_at: store.current()?.installed_at ?? null,
        verified: true,
        on_licence: coversThisInstall(l),
        vouched_until: vouchedFor(l)?.valid_until ?? null,
        site: l.site?.name ?? null,
        file_mounted: file,
      };
    }
    const row = store.get();
    if (row === null) return null;
    const expires = Date.parse(row.expires_at);
    const st = stageOf(
      {
        not_before: row.started_at,
        expires_at: row.expires_at,
        grace_days: row.grace_days,
        warn_days: [14, 7, 1],
      },
      tEff,
    );
    // A trial code redeemed offline is bound to the fingerprint it was redeemed on.
    const redeemed = row.kind === 'trial_code';
    const here = !redeemed || row.fingerprint === deps.fingerprint;
    const valid = stageOperates(st.stage) && here;
    return {
      kind: 'trial',
      tier: row.tier,
      customer: null,
      licence_id: null,
      serial: null,
      source: redeemed ? 'redeem' : 'trial_local',
      services: row.services,
      services_used: deps.servicesUsed?.() ?? null,
      installs: 1,
      install_limit: row.install_limit,
      started_at: row.started_at,
      expires_at: row.expires_at,
      grace_ends_at: new Date(expires + row.grace_days * DAY_MS).toISOString(),
      stage: st.stage,
      in_grace: st.stage === 'in_grace',
      valid,
      why: !here
        ? `the trial code was redeemed on another install (${row.fingerprint ?? 'none'})`
        : valid
          ? null
          : 'the trial has ended',
      days_left: st.days_left,
      // A trial held here is offline by choice: no licence to confirm with the authority.
      check: 'offline',
      confirmed_at: null,
      installed_at: row.started_at,
      verified: redeemed,
      on_licence: here,
      vouched_until: null,
      site: null,
      file_mounted: file,
    };
  }

  function whyNotValid(
    l: LicencePayload,
    stage: LicenceStage,
    tEff: number,
    mode: CheckMode,
  ): string | null {
    const trustRow = store.trust();
    if (trustRow.revoked === l.licence_id) return 'the licence has been revoked';
    if (
      trustRow.superseded_since !== null &&
      tEff >= Date.parse(trustRow.superseded_since) + SUPERSEDED_DAYS * DAY_MS
    ) {
      return `serial ${String(l.serial)} was superseded more than ${String(SUPERSEDED_DAYS)} days ago; install the newer one`;
    }
    if (!coversThisInstall(l)) {
      const ended = store.vouched();
      if (ended?.licence_id === l.licence_id)
        return `the grant from ${ended.granted_by} ended at ${ended.valid_until}: ask again (POST /v1/licence/installs/ask) or install a licence that lists this install`;
      return `this install (${deps.fingerprint ?? 'no fingerprint'}) is not on the licence`;
    }
    if (stage === 'not_yet') return `the licence starts at ${l.not_before}`;
    if (stage === 'lapsed') return 'the licence has lapsed: its grace period has ended';
    const current = store.current();
    if (mode === 'strict' && current !== null) {
      const confirmed = store.check()?.last_confirmed_at ?? null;
      if (tEff - unconfirmedSince(confirmed, current.installed_at) > STRICT_UNCONFIRMED_MS)
        return `strict licence checking: not confirmed by the licence authority for more than 72 hours (last confirmed ${confirmed ?? 'never'}); it operates again on the next confirmation (POST /v1/licence/check)`;
    }
    return null;
  }

  /** Records what time and revocations say of the licence in force (stages, revocation, mode). */
  async function settle(actor = 'system'): Promise<void> {
    await writer.transact(() => {
      const current = store.current();
      if (active !== null && current !== null) {
        const l = active.verified.licence;
        const r = revocationOf(revocations, l.licence_id, l.serial);
        const trustRow = store.trust();
        if (r?.reason === 'revoked' && trustRow.revoked !== l.licence_id) {
          ledger.append({
            type: 'licence.revoked',
            actor: 'system',
            data: { licence_id: l.licence_id, seq: revocations.seq },
          });
        }
        if (r?.reason === 'superseded' && trustRow.superseded_since === null) {
          const below =
            revocations.licences.find((x) => x.licence_id === l.licence_id)?.below_serial ??
            l.serial + 1;
          ledger.append({
            type: 'licence.superseded',
            actor: 'system',
            data: {
              licence_id: l.licence_id,
              serial: l.serial,
              below_serial: below,
              valid_until: new Date(time.now() + SUPERSEDED_DAYS * DAY_MS).toISOString(),
            },
          });
        }
        const st = stageOf(l, time.now());
        if (
          st.stage === 'expiring' &&
          st.warn_threshold !== null &&
          current.warned_days !== st.warn_threshold
        ) {
          ledger.append({
            type: 'licence.expiring',
            actor: 'system',
            data: { licence_id: l.licence_id, days: st.warn_threshold },
          });
        } else if (
          st.stage === 'in_grace' &&
          current.stage !== 'in_grace' &&
          current.stage !== 'lapsed'
        ) {
          ledger.append({
            type: 'licence.grace_entered',
            actor: 'system',
            data: { licence_id: l.licence_id, grace_ends_at: st.grace_ends_at ?? '' },
          });
        } else if (st.stage === 'lapsed' && current.stage !== 'lapsed') {
          ledger.append({
            type: 'licence.lapsed',
            actor: 'system',
            data: { licence_id: l.licence_id },
          });
        }
      }
      const after = view();
      const validNow = after?.valid === true;
      if (lastValid !== null && lastValid !== validNow) {
        ledger.append({
          type: 'licence.mode_changed',
          actor,
          data: {
            from: lastValid ? 'licensed' : 'setup',
            to: validNow ? 'licensed' : 'setup',
            why: after?.why ?? (after === null ? 'no licence' : 'the licence is valid'),
          },
        });
      }
      lastValid = validNow;
    });
  }

  /**
   * The list shipped with the build, offered at start (the stored list was read with the rest
   * of what was recorded; an admin-placed SVC_REVOCATION_FILE is read by every tick instead).
   */
  async function offerBundledRevocations(): Promise<void> {
    if (settings.revocationFile !== null) return;
    const bundled = bundledRevocationsFile();
    const file = bundled === null ? null : readDocumentFile(bundled);
    if (file !== null && 'text' in file) await offerRevocations(file.text, 'bundled');
  }

  /** A revocation list from anywhere: the highest seq wins, a lower one is a rollback. */
  async function offerRevocations(text: string, source: string): Promise<void> {
    const v = verifyRevocations(text, trust());
    if (!v.ok) {
      deps.log.warn({ check: v.check, source }, `a revocation list was refused: ${v.detail}`);
      return;
    }
    const floor = active?.verified.licence.min_revocations_seq ?? 0;
    if (v.list.seq < revocations.seq || v.list.seq < floor) {
      // The bundled list is older than one learnt later after every update: that is expected.
      if (source !== 'bundled') {
        await writer.transact(() => {
          ledger.append({
            type: 'licence.revocations_rollback_ignored',
            actor: 'system',
            data: { seq: v.list.seq, held: Math.max(revocations.seq, floor), source },
          });
        });
      }
      return;
    }
    if (v.list.seq === revocations.seq) return;
    const from = revocations.seq;
    writeDocumentCopy(revocationsCopy, text);
    revocations = v.list;
    revocationKeys = keysOf(text);
    // The list shipped with the build, taken when nothing was held: every install starts
    // with it, so it is no news to record (a newer one shipped by an upgrade is recorded).
    if (source === 'bundled' && from === 0) return;
    await writer.transact(() => {
      ledger.append({
        type: 'licence.revocations_updated',
        actor: 'system',
        data: { seq: v.list.seq, from_seq: from, source },
      });
    });
  }

  /** The licence text to use at start or on a re-read: the mounted file, else the copy. */
  async function loadLicence(): Promise<void> {
    const file = readDocumentFile(settings.licenceFile);
    if ('text' in file) {
      if (file.text === mountedSeen) return;
      mountedSeen = file.text;
      try {
        await accept(file.text, 'file', { actor: 'system', acknowledge: true });
        return;
      } catch (err) {
        deps.log.warn(
          { err },
          `the licence file ${settings.licenceFile} was refused; keeping the licence in force`,
        );
        if (active !== null) return;
      }
    } else {
      mountedSeen = null;
      if ('problem' in file) deps.log.warn(file.problem);
    }
    if (active !== null) return;
    const copy = readDocumentFile(copyFile);
    if (!('text' in copy)) return;
    const verdict = verifyLicence(copy.text, trust());
    const current = store.current();
    if (!verdict.ok) {
      deps.log.warn(
        { check: verdict.check },
        `the stored licence copy is not valid: ${verdict.detail}`,
      );
      return;
    }
    if (current?.sha256 === verdict.sha256) {
      active = { verified: verdict, text: copy.text };
      return;
    }
    // A copy written just before a crash, never recorded: record it now if it still may be.
    if (refusalOf(verdict) === null) {
      await writer.transact(() => {
        appendInstalled(verdict, 'api', 'system', []);
      });
      active = { verified: verdict, text: copy.text };
    }
  }

  async function tick(): Promise<void> {
    const behindS = time.advance();
    if (behindS !== null && !clockBehind) {
      await writer.transact(() => {
        ledger.append({
          type: 'licence.clock_backwards',
          actor: 'system',
          data: { by_s: behindS, hwm: new Date(time.hwm()).toISOString() },
          reason: `the wall clock is ${String(behindS)} s behind the licence high-water mark; decisions keep using the later time`,
        });
      });
    }
    clockBehind = behindS !== null;
    if (settings.revocationFile !== null) {
      const f = readDocumentFile(settings.revocationFile);
      if ('text' in f) await offerRevocations(f.text, 'file');
    }
    await loadLicence();
    await settle();
  }

  async function remove(actor: string): Promise<void> {
    if (mounted()) {
      throw new ConflictError(
        'licence_file_mounted',
        `the licence is managed as the file ${settings.licenceFile}; remove that file instead`,
        { path: settings.licenceFile },
      );
    }
    const current = store.current();
    const trial = store.get();
    if (current === null && trial === null)
      throw new NotFoundError('no_licence', 'no licence is installed');
    await writer.transact(() => {
      ledger.append({
        type: 'licence.removed',
        actor,
        data:
          current === null
            ? { licence_id: 'trial', serial: 0 }
            : { licence_id: current.licence_id, serial: current.serial },
      });
    });
    removeDocumentCopy(copyFile);
    active = null;
    await settle(actor);
  }

  loadRecordedSync();
  return {
    view,
    trustContext: trust,
    /** The licence in force as verified, or null (the offline trial has none). */
    current: (): VerifiedLicence | null => active?.verified ?? null,
    revocations: (): RevocationList => revocations,
    effectiveNow: (): number => time.now(),
    /** The clock's high-water mark (ms), for the usage statement. */
    hwm: (): number => time.hwm(),
    fileMounted: (): string | null => (mounted() ? settings.licenceFile : null),

    /**
     * At start, after the start events: a moved install (the host's identity changed since the
     * fingerprint last recorded), revocations, the licence, then what time says.
     */
    async start(
      recorded: { fingerprint: string | null; source: string } = { fingerprint: null, source: '' },
    ): Promise<void> {
      if (
        deps.fingerprint !== null &&
        recorded.fingerprint !== null &&
        recorded.fingerprint !== deps.fingerprint
      ) {
        const to = deps.fingerprint;
        await writer.transact(() => {
          ledger.append({
            type: 'licence.install.moved',
            actor: 'system',
            data: { from: recorded.fingerprint ?? '', to, source: recorded.source },
            reason:
              'the install fingerprint changed: this install is a candidate until the licence lists it',
          });
        });
      }
      await offerBundledRevocations();
      await tick();
      lastValid = view()?.valid === true;
    },

    /** Every minute and on SIGHUP: the clock mark, the mounted file, revocations, stages. */
    tick: (): Promise<void> => exclusive(tick),

    /** The clock is behind its mark beyond the tolerance (doctor warns). */
    clockBehind: (): boolean => clockBehind,

    /**
     * Signed authority time from a confirmation: earlier than the high-water mark by more than
     * the tolerance, the mark goes back to it (forward-jump recovery, §3.8), audited. Returns
     * whether it did.
     */
    async authorityTime(atMs: number): Promise<boolean> {
      const mark = time.hwm();
      if (atMs >= mark - time.toleranceMs) return false;
      await writer.transact(() => {
        ledger.append({
          type: 'licence.clock_reset',
          actor: 'system',
          data: {
            source: 'authority',
            from: new Date(mark).toISOString(),
            to: new Date(atMs).toISOString(),
          },
          reason: 'signed authority time is earlier than the licence high-water mark',
        });
      });
      time.reset(atMs);
      clockBehind = false;
      return true;
    },

    /** Records what a check or a redeem changed (mode and stages). */
    settle,

    /**
     * Key statements this install knows: those the licence in force carries and those carried
     * by the revocation list in force (each release bundles one, which names the trial key).
     */
    knownStatements(): readonly KeyStatement[] {
      const fromList = certifiedStatements(revocationKeys, trust());
      return [...(active?.verified.statements ?? []), ...(fromList.ok ? fromList.statements : [])];
    },

    /** POST /v1/licence. */
    install: (input: unknown, opts: InstallOptions): Promise<{ changed: boolean }> =>
      exclusive(async () => {
        if (mounted()) {
          throw new ConflictError(
            'licence_file_mounted',
            `the licence is managed as the file ${settings.licenceFile}; replace that file instead`,
            { path: settings.licenceFile },
          );
        }
        return accept(input, 'api', opts);
      }),

    /** A licence learnt from the authority or a redeemed trial: the same verifier. */
    installFrom: (input: unknown, source: 'redeem' | 'authority', actor: string) =>
      exclusive(() => accept(input, source, { actor, acknowledge: true })),

    /**
     * The licence a checked grant carries (installs/grant.ts acceptGrant), installed with the
     * grant in one step: grant_accepted, then installed or replaced. 409 with a mounted file.
     */
    installGranted: (licenceText: string, grant: Vouch, actor: string) =>
      exclusive(() => {
        if (mounted()) {
          throw new ConflictError(
            'licence_file_mounted',
            `the licence is managed as the file ${settings.licenceFile}; the vendor's next file must list this install`,
            { path: settings.licenceFile },
          );
        }
        return accept(licenceText, 'grant', { actor, acknowledge: true }, grant);
      }),

    /** A revocation list learnt online or attached to a grant. */
    offerRevocations: (text: string, source: string): Promise<void> =>
      exclusive(() => offerRevocations(text, source)),

    /** DELETE /v1/licence: back to setup; a local trial is not offered again on this fingerprint. */
    remove: (actor: string): Promise<void> => exclusive(() => remove(actor)),

    /** Start the offline trial once per fingerprint; runs inside a writer job. */
    startTrialIfNone(actor: string, fingerprint: string | null): boolean {
      if (store.get() !== null || store.current() !== null) return false;
      if (fingerprint !== null && store.trialStartedFor(fingerprint) !== null) return false;
      ledger.append({
        type: 'licence.trial_started',
        actor,
        data: {
          tier: TRIAL.tier,
          services: TRIAL.services,
          install_limit: TRIAL.install_limit,
          days: TRIAL.days,
          grace_days: TRIAL.grace_days,
          expires_at: new Date(deps.clock.now() + TRIAL.days * DAY_MS).toISOString(),
          fingerprint,
        },
        reason: 'offline trial started at first start',
      });
      return true;
    },
  };
}
export type LicenceService = ReturnType<typeof createLicenceService>;
