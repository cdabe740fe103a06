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
import type { VerifiedLicence } from './document/licence-doc.js';
import { verifyLicence } from './document/licence-doc.js';
import { revocationOf, type RevocationList } from './document/revocations-doc.js';
import { certifiedStatements, type KeyStatement, type TrustedRoot } from './document/trust.js';
import type { CheckMode } from './check-mode.js';
import { createEffectiveTime } from './effective-time.js';
import {
  CLOCK_FILE,
  LICENCE_COPY,
  dataFile,
  isPresent,
  readDocumentFile,
  removeDocumentCopy,
  writeDocumentCopy,
} from './licence-files.js';
import type { LicenceEvents } from './licence.events.js';
import type { LicenceStore } from './licence.store.js';
import { lossesOf } from './losses.js';
import { stageOf } from './stages.js';
import { TRUSTED_ROOTS } from './trust/trusted-roots.js';
import { createHeldRevocations } from './held-revocations.js';
import {
  createLicenceViews,
  SUPERSEDED_DAYS,
  TRIAL,
  type Active,
  type LicenceView,
  type Vouch,
} from './licence-view.js';

export { SUPERSEDED_DAYS, TRIAL, type LicenceView, type Vouch };
const DAY_MS = 86_400_000;

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
  /** the seats in use (the exchange: the licence's installs and grants issued here) */
  readonly installsUsed?: () => number;
  /** the seats keychain members approved on this home hold (keychain joins/approve) */
  readonly keychainSeats?: () => number;
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
  const time = createEffectiveTime({
    clock: deps.clock,
    file: dataFile(settings.dataDir, CLOCK_FILE),
    toleranceS: settings.clockToleranceS,
    newestEventMs: deps.newestEventMs,
  });
  let active: Active | null = null;
  const held = createHeldRevocations({
    roots,
    fips: settings.fips,
    dataDir: settings.dataDir,
    revocationFile: settings.revocationFile,
    ledger,
    writer,
    log: deps.log,
    floor: () => active?.verified.licence.min_revocations_seq ?? 0,
  });
  const trust = held.trust;
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
    const current = store.current();
    const copy = readDocumentFile(copyFile);
    if (current === null || !('text' in copy)) return;
    const verdict = verifyLicence(copy.text, trust());
    if (verdict.ok && verdict.sha256 === current.sha256)
      active = { verified: verdict, text: copy.text };
  }

  const mounted = (): boolean => isPresent(settings.licenceFile);
  const { coversThisInstall, view } = createLicenceViews({
    store,
    check: settings.check,
    fingerprint: deps.fingerprint,
    ...(deps.servicesUsed !== undefined && { servicesUsed: deps.servicesUsed }),
    ...(deps.installsUsed !== undefined && { installsUsed: deps.installsUsed }),
    ...(deps.keychainSeats !== undefined && { keychainSeats: deps.keychainSeats }),
    now: () => time.now(),
    active: () => active,
    mountedFile: () => (mountedSeen !== null ? settings.licenceFile : null),
    revocations: () => held.list(),
  });

  /** Why a verified licence cannot be installed here, or null. */
  function refusalOf(v: VerifiedLicence, grant?: Vouch): { check: string; detail: string } | null {
    const l = v.licence;
    const r = revocationOf(held.list(), l.licence_id, l.serial);
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

  /** Records what time and revocations say of the licence in force (stages, revocation, mode). */
  async function settle(actor = 'system'): Promise<void> {
    await writer.transact(() => {
      const current = store.current();
      if (active !== null && current !== null) {
        const l = active.verified.licence;
        const r = revocationOf(held.list(), l.licence_id, l.serial);
        const trustRow = store.trust();
        if (r?.reason === 'revoked' && trustRow.revoked !== l.licence_id) {
          ledger.append({
            type: 'licence.revoked',
            actor: 'system',
            data: { licence_id: l.licence_id, seq: held.list().seq },
          });
        }
        if (r?.reason === 'superseded' && trustRow.superseded_since === null) {
          const below =
            held.list().licences.find((x) => x.licence_id === l.licence_id)?.below_serial ??
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
      if ('text' in f) await held.offer(f.text, 'file');
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

  /** Moves the high-water mark back to `toMs` when it is ahead by more than the tolerance. */
  async function resetMark(
    toMs: number,
    source: 'authority' | 'cli',
    actor: string,
    reason: string,
  ): Promise<{ from: string; to: string } | null> {
    const mark = time.hwm();
    if (toMs >= mark - time.toleranceMs) return null;
    const moved = { from: new Date(mark).toISOString(), to: new Date(toMs).toISOString() };
    await writer.transact(() => {
      ledger.append({ type: 'licence.clock_reset', actor, data: { source, ...moved }, reason });
    });
    time.reset(toMs);
    clockBehind = false;
    return moved;
  }

  loadRecordedSync();
  return {
    view,
    trustContext: trust,
    /** The licence in force as verified, or null (the offline trial has none). */
    current: (): VerifiedLicence | null => active?.verified ?? null,
    revocations: (): RevocationList => held.list(),
    /** The revocation list in force as signed (grants carry it to the installs they add). */
    revocationsText: (): string | null => held.text(),
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
      await held.offerBundled();
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
      return (
        (await resetMark(
          atMs,
          'authority',
          'system',
          'signed authority time is earlier than the licence high-water mark',
        )) !== null
      );
    },

    /**
     * `svc-core licence clock-reset` (on the host, the service stopped; the rules are the
     * command's): the mark back to the wall clock, audited. Null when it is not ahead.
     */
    resetClock: (toMs: number, actor: string) =>
      resetMark(
        toMs,
        'cli',
        actor,
        'the clock mark was reset on the host (svc-core licence clock-reset)',
      ),

    /** Records what a check or a redeem changed (mode and stages). */
    settle,

    /**
     * Key statements this install knows: those the licence in force carries and those carried
     * by the revocation list in force (each release bundles one, which names the trial key).
     */
    knownStatements(): readonly KeyStatement[] {
      const fromList = certifiedStatements(held.keys(), trust());
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
    installGranted: (licenceText: string, grant: Vouch, opts: InstallOptions) =>
      exclusive(() => {
        // Two pastes of one grant at once: the second finds it in force.
        if (store.vouched()?.req_id === grant.req_id) return Promise.resolve({ changed: false });
        if (mounted()) {
          throw new ConflictError(
            'licence_file_mounted',
            `the licence is managed as the file ${settings.licenceFile}; the vendor's next file must list this install`,
            { path: settings.licenceFile },
          );
        }
        return accept(licenceText, 'grant', opts, grant);
      }),

    /** A revocation list learnt online or attached to a grant. */
    offerRevocations: (text: string, source: string): Promise<void> =>
      exclusive(() => held.offer(text, source)),

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
