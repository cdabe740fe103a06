// A licence read from files alone (licence.md §3.12): what `svc-core licence-verify` and
// `svc-core fingerprint` report with the service stopped and offline. It opens no database
// and writes nothing; it reads the licence file, the revocation lists and the clock mark the
// service keeps, and judges the licence with the service's own verifier at effective time.
import { existsSync } from 'node:fs';
import { verifyLicence, type LicencePayload } from './document/licence-doc.js';
import { signingInput, verifyBytes } from './document/envelope.js';
import {
  EMPTY_REVOCATIONS,
  revocationOf,
  verifyRevocations,
  type RevocationList,
} from './document/revocations-doc.js';
import {
  certifiedStatements,
  readEnvelope,
  type DocumentCheck,
  type TrustContext,
  type TrustedRoot,
} from './document/trust.js';
import { readClockMark } from './effective-time.js';
import {
  CLOCK_FILE,
  LICENCE_COPY,
  REVOCATIONS_COPY,
  bundledRevocationsFile,
  dataFile,
  readDocumentFile,
} from './licence-files.js';
import { SUPERSEDED_DAYS } from './licence.service.js';
import { stageOf, type LicenceStage } from './stages.js';

const DAY_MS = 86_400_000;

/** Where the files of a licence live: the service's settings, as config.ts reads them. */
export interface LicenceFiles {
  /** SVC_LICENCE */
  readonly licenceFile: string;
  readonly dataDir: string;
  /** SVC_REVOCATION_FILE, or null for the list bundled with the build */
  readonly revocationFile: string | null;
  readonly fips: boolean;
}

/** The licence the service would hold: the mounted file if present, else the data folder's copy. */
export function activeLicenceFile(
  files: LicenceFiles,
): { file: string; source: 'mounted' | 'data' } | null {
  if (existsSync(files.licenceFile)) return { file: files.licenceFile, source: 'mounted' };
  const copy = dataFile(files.dataDir, LICENCE_COPY);
  return existsSync(copy) ? { file: copy, source: 'data' } : null;
}

export interface HeldRevocations {
  readonly list: RevocationList;
  /** the file the list in force came from, null when none verifies */
  readonly file: string | null;
  /** lists that were read and refused, with why */
  readonly refused: readonly { file: string; check: DocumentCheck; detail: string }[];
}

/**
 * The revocation list in force: the highest seq among the data folder's copy and
 * SVC_REVOCATION_FILE (or the bundled list), each verified as the service verifies it.
 */
export function heldRevocations(
  files: LicenceFiles,
  roots: readonly TrustedRoot[],
): HeldRevocations {
  const ctx: TrustContext = { roots, revokedKids: new Set(), fips: files.fips };
  let best: { list: RevocationList; file: string | null } = {
    list: EMPTY_REVOCATIONS,
    file: null,
  };
  const refused: { file: string; check: DocumentCheck; detail: string }[] = [];
  const candidates = [
    dataFile(files.dataDir, REVOCATIONS_COPY),
    files.revocationFile ?? bundledRevocationsFile(),
  ];
  for (const file of candidates) {
    if (file === null) continue;
    const read = readDocumentFile(file);
    if (!('text' in read)) continue;
    const v = verifyRevocations(read.text, ctx);
    if (!v.ok) refused.push({ file, check: v.check, detail: v.detail });
    else if (best.file === null || v.list.seq > best.list.seq) best = { list: v.list, file };
  }
  return { ...best, refused };
}

/** The clock mark the service persists (0 when it has none yet). */
export const heldClockMark = (dataDir: string): number =>
  readClockMark(dataFile(dataDir, CLOCK_FILE));

export interface SignatureReport {
  readonly kid: string;
  readonly alg: string;
  readonly valid: boolean;
  /** why it does not count, when it does not */
  readonly note: string | null;
}

export interface StatementReport {
  readonly kid: string;
  readonly alg: string;
  readonly usage: readonly string[];
  readonly not_before: string;
  readonly not_after: string;
  readonly serial: number;
  readonly certified_by: readonly string[];
}

/** Why a licence is not good here, named as the checks of the verifier and the service. */
export type InspectCheck =
  DocumentCheck | 'revoked' | 'superseded' | 'not_yet' | 'lapsed' | 'not_for_this_install';

export interface LicenceReport {
  readonly format: string | null;
  readonly signatures: readonly SignatureReport[];
  readonly key_statements: readonly StatementReport[];
  readonly root_kids: readonly string[];
  /** the payload, when the licence verified */
  readonly licence: LicencePayload | null;
  readonly sha256: string | null;
  readonly t_eff: string;
  readonly hwm: string | null;
  readonly stage: LicenceStage | null;
  readonly days_left: number | null;
  readonly grace_ends_at: string | null;
  readonly revocation: {
    readonly seq: number;
    readonly file: string | null;
    readonly status: 'not revoked' | 'revoked' | 'superseded';
    readonly detail: string | null;
  };
  readonly this_install: {
    readonly fingerprint: string | null;
    readonly listed: boolean;
    readonly site: string | null;
  };
  /** ok, or the first check that fails in the order the exit codes rank them */
  readonly verdict:
    | { readonly ok: true }
    | { readonly ok: false; readonly check: InspectCheck; readonly detail: string };
}

export interface InspectContext {
  readonly roots: readonly TrustedRoot[];
  readonly fips: boolean;
  readonly revocations: RevocationList;
  readonly revocationsFile: string | null;
  readonly fingerprint: string | null;
  /** the wall clock, in ms */
  readonly now: number;
  /** the service's high-water mark, in ms (0 when none) */
  readonly hwm: number;
}

/** Each signature of the envelope with whether it verifies, for display only: the verdict is
 * the verifier's. */
function signaturesOf(
  input: string,
  ctx: TrustContext,
): { format: string | null; signatures: SignatureReport[]; statements: StatementReport[] } {
  const env = readEnvelope(input);
  if (typeof env === 'string') return { format: null, signatures: [], statements: [] };
  const certified = certifiedStatements(env.keys ?? [], ctx);
  const statements = certified.ok ? certified.statements : [];
  const signed = signingInput(env.format, Buffer.from(env.payload, 'base64url'));
  const signatures = env.signatures.map((s): SignatureReport => {
    const st = statements.find((k) => k.kid === s.kid && k.alg === s.alg);
    if (st === undefined)
      return { kid: s.kid, alg: s.alg, valid: false, note: 'unknown key: no trusted statement' };
    if (!verifyBytes(s.alg, st.key, signed, s.sig))
      return { kid: s.kid, alg: s.alg, valid: false, note: 'does not verify' };
    if (ctx.revokedKids.has(s.kid))
      return { kid: s.kid, alg: s.alg, valid: true, note: 'key revoked' };
    if (ctx.fips && s.alg !== 'ES256')
      return { kid: s.kid, alg: s.alg, valid: true, note: 'not counted under SVC_FIPS=1' };
    if (!st.usage.includes('licence'))
      return { kid: s.kid, alg: s.alg, valid: true, note: 'key may not sign licences' };
    return { kid: s.kid, alg: s.alg, valid: true, note: null };
  });
  return {
    format: env.format,
    signatures,
    statements: statements.map((st) => ({
      kid: st.kid,
      alg: st.alg,
      usage: st.usage,
      not_before: st.not_before,
      not_after: st.not_after,
      serial: st.serial,
      certified_by: st.certified_by,
    })),
  };
}

/** Judges a licence text as the service would at effective time, with the files it keeps. */
export function inspectLicence(input: string, c: InspectContext): LicenceReport {
  const trust: TrustContext = {
    roots: c.roots,
    revokedKids: new Set(c.revocations.keys.map((k) => k.kid)),
    fips: c.fips,
  };
  const tEff = Math.max(c.now, c.hwm);
  const shown = signaturesOf(input, trust);
  const base = {
    format: shown.format,
    signatures: shown.signatures,
    key_statements: shown.statements,
    root_kids: c.roots.map((r) => r.kid),
    t_eff: new Date(tEff).toISOString(),
    hwm: c.hwm > 0 ? new Date(c.hwm).toISOString() : null,
  };
  const verdict = verifyLicence(input, trust);
  const notRevoked = {
    seq: c.revocations.seq,
    file: c.revocationsFile,
    status: 'not revoked' as const,
    detail: null,
  };
  if (!verdict.ok) {
    return {
      ...base,
      licence: null,
      sha256: null,
      stage: null,
      days_left: null,
      grace_ends_at: null,
      revocation: notRevoked,
      this_install: { fingerprint: c.fingerprint, listed: false, site: null },
      verdict: { ok: false, check: verdict.check, detail: verdict.detail },
    };
  }
  const l = verdict.licence;
  const st = stageOf(l, tEff);
  const listed = c.fingerprint !== null && l.installs.some((i) => i.fingerprint === c.fingerprint);
  const r = revocationOf(c.revocations, l.licence_id, l.serial);
  // A superseded serial keeps working for a while after the newer one is known; from the
  // list alone that is its `at`, when the list gives one.
  const supersededOut =
    r?.reason === 'superseded' &&
    r.at !== undefined &&
    tEff >= Date.parse(r.at) + SUPERSEDED_DAYS * DAY_MS;
  const revocation =
    r === null
      ? notRevoked
      : {
          seq: c.revocations.seq,
          file: c.revocationsFile,
          status: r.reason,
          detail:
            r.reason === 'revoked'
              ? `licence ${l.licence_id} is revoked${r.at === undefined ? '' : ` since ${r.at}`}`
              : `serial ${String(l.serial)} is superseded${r.at === undefined ? '' : ` since ${r.at}`}; it works ${String(SUPERSEDED_DAYS)} days after the service learns of it`,
        };
  const fail = (check: InspectCheck, detail: string) => ({ ok: false as const, check, detail });
  const judged =
    r?.reason === 'revoked'
      ? fail('revoked', revocation.detail ?? 'revoked')
      : supersededOut
        ? fail('superseded', revocation.detail ?? 'superseded')
        : st.stage === 'lapsed'
          ? fail(
              'lapsed',
              `expired ${l.expires_at ?? ''}; its grace ended ${st.grace_ends_at ?? ''}`,
            )
          : st.stage === 'not_yet'
            ? fail('not_yet', `the licence starts at ${l.not_before}`)
            : l.site === null && !listed
              ? fail(
                  'not_for_this_install',
                  `this install (${c.fingerprint ?? 'no fingerprint'}) is not listed on the licence`,
                )
              : { ok: true as const };
  return {
    ...base,
    licence: l,
    sha256: verdict.sha256,
    stage: st.stage,
    days_left: st.days_left,
    grace_ends_at: st.grace_ends_at,
    revocation,
    this_install: { fingerprint: c.fingerprint, listed, site: l.site?.name ?? null },
    verdict: judged,
  };
}
