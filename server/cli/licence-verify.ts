// svc-core licence-verify [FILE] [--json]: a licence file judged as the service would judge
// it (licence.md §3.12), from files alone, so it runs with the service stopped and offline and
// never opens the database. Without FILE, the licence in force: the mounted SVC_LICENCE file,
// else the data folder's copy. Exit codes rank what is wrong, first failure wins.
import type { Config } from '../config.js';
import { computeFingerprint } from '../install/index.js';
import {
  TRUSTED_ROOTS,
  activeLicenceFile,
  heldClockMark,
  heldRevocations,
  inspectLicence,
  readDocumentFile,
  type InspectCheck,
  type LicenceReport,
} from '../licence/index.js';
import type { Clock } from '../shared/clock.js';

type Out = { log(line: string): void; error(line: string): void };

export const LICENCE_VERIFY_USAGE = `  licence-verify [FILE] [--json]  verify a licence file (default: the licence in force) offline;
                                  exit 0 valid, 2 malformed, 3 bad or unknown signature,
                                  4 revoked, 5 expired beyond grace, 6 not for this install`;

/** The exit code of each way a licence can fail; anything else is 1. */
export const EXIT_OF: Readonly<Partial<Record<InspectCheck, number>>> = {
  format: 2,
  format_version: 2,
  payload: 2,
  signature: 3,
  unknown_key: 3,
  key_statement: 3,
  fips: 3,
  revoked_key: 4,
  revoked: 4,
  superseded: 4,
  lapsed: 5,
  not_for_this_install: 6,
};

export interface LicenceVerifyDeps {
  readonly config: () => Config;
  readonly clock: Clock;
}

const SOURCE_NAMES = {
  given: 'given',
  mounted: 'the mounted SVC_LICENCE file',
  data: "the data folder's copy",
} as const;

function lines(file: string, source: keyof typeof SOURCE_NAMES, r: LicenceReport): string[] {
  const out = [`file: ${file} (${SOURCE_NAMES[source]})`, `format: ${r.format ?? '(unreadable)'}`];
  for (const s of r.signatures)
    out.push(
      `signature: ${s.valid ? 'valid' : 'INVALID'} ${s.alg} kid ${s.kid}${s.note === null ? '' : ` (${s.note})`}`,
    );
  for (const k of r.key_statements)
    out.push(
      `key statement: ${k.alg} kid ${k.kid}, usage ${k.usage.join(',')}, issues ${k.not_before} to ${k.not_after}, serial ${String(k.serial)}, certified by root ${k.certified_by.join(', ')}`,
    );
  out.push(`root kids: ${r.root_kids.join(', ')}`);
  const l = r.licence;
  if (l !== null) {
    const limit = (n: number | null, what: string) =>
      n === null ? `unlimited ${what}` : `${String(n)} ${what}`;
    out.push(
      `licence id: ${l.licence_id}`,
      `serial: ${String(l.serial)}`,
      `customer: ${l.customer.name} (${l.customer.id})`,
      `tier: ${l.tier}`,
      `limits: ${limit(l.limits.services, 'services')}, ${limit(l.limits.installs, 'installs')}`,
      `installs: ${l.installs.length === 0 ? 'none listed' : l.installs.map((i) => `${i.fingerprint} (${i.role}, ${i.label})`).join('; ')}`,
      `site: ${l.site?.name ?? 'none'}`,
      `packs: ${l.features.packs === '*' ? 'all' : l.features.packs.join(', ') || 'none'}`,
      `expires: ${l.expires_at ?? 'never'}`,
      `grace ends: ${r.grace_ends_at ?? 'never'}`,
      `stage: ${r.stage ?? '?'}${r.days_left === null ? '' : ` (${String(r.days_left)} days left)`} at ${r.t_eff}${r.hwm === null ? '' : ` (clock mark ${r.hwm})`}`,
    );
  }
  out.push(
    `revocation: ${r.revocation.status}${r.revocation.detail === null ? '' : ` (${r.revocation.detail})`}; list seq ${String(r.revocation.seq)}${r.revocation.file === null ? '' : ` from ${r.revocation.file}`}`,
    `this install: ${r.this_install.fingerprint ?? 'no fingerprint'} ${r.this_install.listed ? 'is listed' : r.this_install.site !== null ? `is covered by the site licence ${r.this_install.site}` : 'is not listed'}`,
    r.verdict.ok ? 'result: valid' : `result: REFUSED (${r.verdict.check}): ${r.verdict.detail}`,
  );
  return out;
}

export function licenceVerifyCommand(
  positionals: readonly string[],
  values: { json: boolean },
  out: Out,
  deps: LicenceVerifyDeps,
): number {
  if (positionals.length > 1) {
    out.error(`svc-core licence-verify: one FILE at most\n${LICENCE_VERIFY_USAGE}`);
    return 2;
  }
  const cfg = deps.config();
  const files = {
    licenceFile: cfg.files.licence,
    dataDir: cfg.dataDir,
    revocationFile: cfg.licence.revocationFile,
    fips: cfg.fips,
  };
  const given = positionals[0];
  const target =
    given === undefined ? activeLicenceFile(files) : { file: given, source: 'given' as const };
  if (target === null) {
    out.error(
      `no licence to verify: neither ${files.licenceFile} (SVC_LICENCE) nor ${cfg.dataDir}/licence.json exists; name a FILE`,
    );
    return 1;
  }
  const read = readDocumentFile(target.file);
  if (!('text' in read)) {
    out.error('missing' in read ? `${target.file} does not exist` : read.problem);
    return 1;
  }
  const revocations = heldRevocations(files, TRUSTED_ROOTS);
  const fp = computeFingerprint(cfg.identity);
  const report = inspectLicence(read.text, {
    roots: TRUSTED_ROOTS,
    fips: cfg.fips,
    revocations: revocations.list,
    revocationsFile: revocations.file,
    fingerprint: fp.ok ? fp.fingerprint : null,
    now: deps.clock.now(),
    hwm: heldClockMark(cfg.dataDir),
  });
  const code = report.verdict.ok ? 0 : (EXIT_OF[report.verdict.check] ?? 1);
  if (values.json) {
    out.log(
      JSON.stringify(
        {
          file: target.file,
          source: target.source,
          ...report,
          revocations_refused: revocations.refused,
          exit: code,
        },
        null,
        2,
      ),
    );
  } else {
    for (const line of lines(target.file, target.source, report)) out.log(line);
    for (const r of revocations.refused)
      out.log(`warning: the revocation list ${r.file} is refused (${r.check}): ${r.detail}`);
  }
  return code;
}
