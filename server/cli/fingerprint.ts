// svc-core fingerprint [--json] (licence.md §3.5): the install fingerprint on the first line
// (what scripts read), then where it comes from (the kind and the file's path, never its
// value), container warnings, and whether the licence in force covers it.
import type { Config } from '../config.js';
import {
  computeFingerprint,
  containerFacts,
  imageBakedMachineId,
  type ContainerPaths,
} from '../install/index.js';
import type { LicenceView } from '../licence/index.js';

type Out = { log(line: string): void; error(line: string): void };

export const FINGERPRINT_USAGE = `  fingerprint [--json]            print the install fingerprint, where it comes from,
                                  container warnings, and whether the licence covers it`;

function coverage(v: LicenceView | null, fingerprint: string): string {
  if (v === null) return 'no licence is installed';
  if (v.kind === 'trial') return 'the trial: no signed licence lists installs yet';
  if (v.site !== null) return `covered by the site licence ${v.site} (${v.licence_id ?? ''})`;
  if (v.vouched_until !== null)
    return `vouched for on licence ${v.licence_id ?? ''} until ${v.vouched_until}`;
  return v.on_licence
    ? `listed on licence ${v.licence_id ?? ''} serial ${String(v.serial)}`
    : `not on licence ${v.licence_id ?? ''}: ${fingerprint} is a candidate; ask to be added (Licence page, POST /v1/licence/installs/ask)`;
}

export function fingerprintCommand(
  cfg: Config,
  out: Out,
  opts: { json: boolean; licence: () => LicenceView | null; paths?: ContainerPaths },
): number {
  const fp = computeFingerprint(cfg.identity);
  if (!fp.ok) {
    out.error(fp.problem);
    return 1;
  }
  const source =
    fp.source === 'cluster'
      ? 'SVC_CLUSTER_UID'
      : fp.source === 'machine-id'
        ? cfg.identity.machineIdFile
        : (cfg.identity.hardwareIdFile ?? '');
  const facts = containerFacts(cfg.identity.machineIdFile, opts.paths);
  const baked = imageBakedMachineId(fp.source, cfg.identity.machineIdFile, opts.paths);
  const warnings = baked === null ? [] : [baked];
  let view: LicenceView | null = null;
  let licence: string;
  try {
    view = opts.licence();
    licence = coverage(view, fp.fingerprint);
  } catch {
    licence = 'unknown: the data folder has not been started yet';
  }
  if (opts.json) {
    out.log(
      JSON.stringify(
        {
          fingerprint: fp.fingerprint,
          kind: fp.source,
          source,
          container: facts.container,
          machine_id_mounted: facts.machineIdMounted,
          warnings,
          on_licence: view?.on_licence ?? null,
          licence,
        },
        null,
        2,
      ),
    );
    return 0;
  }
  out.log(fp.fingerprint);
  out.log(`kind: ${fp.source}`);
  out.log(`source: ${source} (its value never leaves this host)`);
  out.log(`container: ${facts.container ?? 'no'}`);
  for (const w of warnings) out.log(`warning: ${w}`);
  out.log(`licence: ${licence}`);
  return 0;
}
