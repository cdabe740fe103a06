// svc-core checks run ALERT[@SERVICE]... [--json]: a read-only diagnosis now, through the
// configured connectors and the loaded check packs, with nothing written to the ledger.
// Each ALERT is an alert name; `ALERT@service` names its service, else the estate resolves
// it from the label alertname alone (an alias in the overrides), else it must be given.
// Alerts of one service are diagnosed together, as one episode would be. Prints each
// finding and the hypotheses, best first; exit 0 when every diagnosis ran, 1 when an alert
// has no service or nothing could be read, 2 on bad usage.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { ConnectorsService } from '../connectors/index.js';
import type { EstateView } from '../estate/index.js';
import { databaseFile } from '../install/index.js';
import type { Investigation, Finding, Hypothesis } from '../investigate/index.js';
import { loadPacks, packDirs, type Pack } from '../packs/index.js';
import { buildToolEngine, buildToolEstate, type Runtime } from '../compose/index.js';

type Out = { log(line: string): void; error(line: string): void };

export interface ChecksCliDeps {
  readonly out: Out;
  readonly config: () => Config;
  readonly runtime: (cfg: Config) => Runtime;
  readonly connectorsOf: (rt: Runtime) => ConnectorsService;
  /** the packs to run; default: the built-in signed packs and SVC_PACKS, as the service loads them */
  readonly packs?: (cfg: Config) => readonly Pack[];
}

export const CHECKS_USAGE = `  checks run ALERT[@SERVICE]... [--json]
                                  diagnose now, read-only: run the check packs that match
                                  the alerts through the connectors and print findings and
                                  hypotheses; ALERT@SERVICE names the service, else the
                                  estate must resolve the alert name`;

/** `LabAppDown@app` → name and service; a bare name has service null. */
export function parseAlertArg(arg: string): { alert: string; service: string | null } {
  const at = arg.lastIndexOf('@');
  if (at < 0) return { alert: arg.trim(), service: null };
  return { alert: arg.slice(0, at).trim(), service: arg.slice(at + 1).trim() || null };
}

const pad = (s: string, n: number): string => s.padEnd(n);

export function findingLine(f: Finding): string {
  const where = f.connector === '' ? '' : ` [${f.connector}]`;
  return `  ${pad(f.readable ? 'finding' : 'unread', 8)}${f.service}: ${f.id}${where}: ${f.says}`;
}

export function hypothesisLine(h: Hypothesis): string {
  const parts = [
    `  ${pad(h.confidence, 10)}${h.cause}(${h.service}): ${h.title}`,
    h.proving.length > 0 ? `proving ${h.proving.join(', ')}` : '',
    h.supporting.length > 0 ? `supporting ${h.supporting.join(', ')}` : '',
    h.refuting.length > 0 ? `refuting ${h.refuting.join(', ')}` : '',
    (h.held ?? []).length > 0 ? `held: ${(h.held ?? []).join(', ')}` : '',
    h.fixes.length > 0 ? `fixes ${h.fixes.join(', ')}` : 'no fix: ask a person',
  ].filter((p) => p !== '');
  return parts.join('; ');
}

function report(inv: Investigation, alerts: readonly string[], out: Out): void {
  out.log(
    `${inv.service} (${alerts.join(', ')}): packs ${inv.packs.length === 0 ? 'none match' : inv.packs.join(', ')}`,
  );
  for (const f of inv.findings) out.log(findingLine(f));
  out.log(inv.hypotheses.length === 0 ? '  no hypothesis' : 'hypotheses, best first:');
  for (const h of inv.hypotheses) out.log(hypothesisLine(h));
  const lead = inv.hypotheses[0];
  if (lead !== undefined && (lead.confidence === 'proven' || lead.confidence === 'linked')) {
    for (const fix of inv.fixes.forHypothesis(lead)) {
      const call = `${fix.action.op} ${JSON.stringify(fix.action.args)}`;
      out.log(
        `fix ${fix.pack}/${fix.fix.id} (${fix.fix.risk}, ${fix.fix.kind}) on ${fix.service}: ${fix.runnable ? `${call} via ${fix.connector ?? '?'}` : `not runnable: ${fix.why ?? ''}`} (not run)`,
      );
    }
  }
}

export async function checksCommand(argv: readonly string[], deps: ChecksCliDeps): Promise<number> {
  const { out } = deps;
  let parsed: ReturnType<
    typeof parseArgs<{ options: { json: { type: 'boolean' } }; allowPositionals: true }>
  >;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { json: { type: 'boolean' } },
      allowPositionals: true,
    });
  } catch (err) {
    out.error(`svc-core checks: ${(err as Error).message}\n${CHECKS_USAGE}`);
    return 2;
  }
  const [sub, ...alertArgs] = parsed.positionals;
  const json = parsed.values.json === true;
  if (sub !== 'run' || alertArgs.length === 0) {
    out.error(`svc-core checks: use run ALERT[@SERVICE]...\n${CHECKS_USAGE}`);
    return 2;
  }
  const wanted = alertArgs.map(parseAlertArg);
  if (wanted.some((w) => w.alert === '')) {
    out.error(`svc-core checks: an ALERT is empty\n${CHECKS_USAGE}`);
    return 2;
  }
  const cfg = deps.config();
  if (!existsSync(databaseFile(cfg.dataDir))) {
    out.error(`no data folder at ${cfg.dataDir}: start the service once and add connectors first`);
    return 1;
  }
  const packs =
    deps.packs?.(cfg) ??
    (() => {
      const loaded = loadPacks({ dirs: packDirs(cfg.files.packs) });
      for (const r of loaded.refused) out.error(`pack ${r.file} refused: ${r.why}`);
      return loaded.loaded.map((p) => p.pack);
    })();
  const rt = deps.runtime(cfg);
  try {
    const connectors = deps.connectorsOf(rt);
    try {
      const estate = buildToolEstate(rt);
      const view: EstateView = estate.view();
      const groups = new Map<string, string[]>();
      for (const w of wanted) {
        const service = w.service ?? estate.resolve({ alertname: w.alert })?.service ?? null;
        if (service === null) {
          out.error(
            `${w.alert}: the estate names no service for it; say ${w.alert}@SERVICE (services: ${view.services.map((s) => s.name).join(', ') || 'none yet'})`,
          );
          return 1;
        }
        groups.set(service, [...(groups.get(service) ?? []), w.alert]);
      }
      const engine = buildToolEngine(rt, packs, view, connectors);
      const results: { alerts: string[]; inv: Investigation }[] = [];
      for (const [service, alerts] of groups) {
        const inv = await engine.investigate({
          episode_id: `checks-${rt.clock.nowIso()}`,
          service,
          alerts,
          labels: { alertname: alerts[0] ?? '', service },
        });
        results.push({ alerts, inv });
      }
      if (json) {
        out.log(
          JSON.stringify(
            {
              investigations: results.map(({ alerts, inv }) => ({
                service: inv.service,
                alerts,
                packs: inv.packs,
                findings: inv.findings,
                hypotheses: inv.hypotheses,
                fixes: inv.hypotheses
                  .filter((h) => h.confidence === 'proven' || h.confidence === 'linked')
                  .flatMap((h) => inv.fixes.forHypothesis(h))
                  .map((f) => ({
                    pack: f.pack,
                    id: f.fix.id,
                    service: f.service,
                    connector: f.connector,
                    action: f.action,
                    runnable: f.runnable,
                    why: f.why,
                  })),
              })),
            },
            null,
            2,
          ),
        );
      } else {
        for (const { alerts, inv } of results) report(inv, alerts, out);
      }
      const nothingRead = results.every(({ inv }) => inv.findings.every((f) => !f.readable));
      return nothingRead && results.some(({ inv }) => inv.findings.length > 0) ? 1 : 0;
    } finally {
      await connectors.close();
    }
  } finally {
    rt.close();
  }
}
