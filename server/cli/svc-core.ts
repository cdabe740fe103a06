// svc-core: the command line of the service (version, health, fingerprint, ledger-verify,
// licence-verify, doctor, preflight, connectors, estate, packs, checks, models serve, digest, ml,
// rebuild).
// Exit 0 on success, 1 on a failed check, 2 on bad usage (licence-verify ranks its own).
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { checkAll, KINDS, type ConnectionHealth } from '../connectors/index.js';
import { buildToolConnectors, buildToolDoctor, createRuntime } from '../compose/index.js';
import { databaseFile, lockDataDir } from '../install/index.js';
import { rebuildProjections } from '../ledger/index.js';
import { noLicenceOpener, packOpener } from '../licence/index.js';
import { createLogger } from '../logger.js';
import { VERSION } from '../version.js';
import { estateCommand, ESTATE_USAGE } from './estate.js';
import { packsCommand, PACKS_USAGE } from './packs.js';
import { checksCommand, CHECKS_USAGE } from './checks.js';
import { modelsCommand, MODELS_USAGE } from './models.js';
import { preflight } from './preflight.js';
import { digestCommand, DIGEST_USAGE } from './digest.js';
import { mlCommand, ML_USAGE } from './ml.js';
import { licenceVerifyCommand, LICENCE_VERIFY_USAGE } from './licence-verify.js';
import { fingerprintCommand, FINGERPRINT_USAGE } from './fingerprint.js';
import { clockResetCommand, CLOCK_RESET_USAGE } from './licence-clock.js';
import { systemClock } from '../shared/clock.js';

const USAGE = `usage: svc-core <command> [options]
  version                         print the version
  health [--url URL]              exit 0 if the service answers /health
${FINGERPRINT_USAGE}
  ledger-verify [--checkpoint FILE] [--json]
                                  verify the ledger; non-zero exit and the seq on failure
${LICENCE_VERIFY_USAGE}
${CLOCK_RESET_USAGE}
  doctor [--json]                 health check by check
  preflight [--deep] [--json]     can this host run the service; non-zero on any fail;
                                  --deep also asks each connector
  connectors list                 connector kinds with their capabilities, and the
                                  configured connectors
  connectors check [--json]       health of each connector; non-zero if any fails
${ESTATE_USAGE}
${PACKS_USAGE}
${CHECKS_USAGE}
${MODELS_USAGE}
${DIGEST_USAGE}
${ML_USAGE}
  rebuild [--check]               rebuild projections from the ledger (service stopped);
                                  --check compares only and changes nothing`;

type Out = { log(line: string): void; error(line: string): void };

function config(): Config {
  return loadConfig(process.env, { version: VERSION });
}

/** Read commands open the database read-only and never migrate it; `write` is for rebuild and
 * a direct estate build, which hold the data folder's lock. */
function runtime(cfg: Config, options: { write?: boolean } = {}) {
  return createRuntime(cfg, {
    log: createLogger('silent'),
    mustExist: true,
    readOnly: options.write !== true,
  });
}

const mark = (s: string): string => s.padEnd(5);

/** The configured connectors of this data folder (or the SVC_CONNECTORS file), built read-only. */
const connectorsOf = (rt: ReturnType<typeof runtime>) => buildToolConnectors(rt, process.env);

/** Health of every connector of an existing data folder; null when there is none yet. */
async function connectionHealth(cfg: Config): Promise<ConnectionHealth[] | null> {
  if (!existsSync(databaseFile(cfg.dataDir))) return null;
  const rt = runtime(cfg);
  try {
    const connectors = connectorsOf(rt);
    try {
      return await checkAll(connectors);
    } finally {
      await connectors.close();
    }
  } finally {
    rt.close();
  }
}

const healthLine = (h: ConnectionHealth): string =>
  `${mark(h.ok ? 'ok' : 'fail')} ${h.name} (${h.kind}): ${h.detail} [${String(h.duration_ms)} ms]`;

export async function run(argv: readonly string[], out: Out): Promise<number> {
  const [command, ...rest] = argv;
  // Its own options (--model, --port, …): parsed there, not by the common parser below.
  if (command === 'models') return modelsCommand(rest, { out });
  if (command === 'ml') return mlCommand(rest, config, out);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      json: { type: 'boolean', default: false },
      deep: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      url: { type: 'string' },
      checkpoint: { type: 'string' },
      out: { type: 'string' },
    },
    allowPositionals:
      command === 'connectors' ||
      command === 'estate' ||
      command === 'packs' ||
      command === 'checks' ||
      command === 'licence' ||
      command === 'licence-verify' ||
      command === 'digest',
  });
  switch (command) {
    case 'version':
      out.log(VERSION);
      return 0;
    case 'health': {
      const cfg = config();
      const host =
        cfg.http.bind === '0.0.0.0' || cfg.http.bind === '::' ? '127.0.0.1' : cfg.http.bind;
      const url = values.url ?? `http://${host}:${String(cfg.http.port)}`;
      try {
        const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
        out.log(`${url}: ${res.ok ? 'up' : `answered ${String(res.status)}`}`);
        return res.ok ? 0 : 1;
      } catch (err) {
        out.error(
          `${url}: down (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`,
        );
        return 1;
      }
    }
    case 'fingerprint': {
      const cfg = config();
      // Opened only to say whether the licence covers the fingerprint.
      const opened: { rt: ReturnType<typeof runtime> | null } = { rt: null };
      try {
        return fingerprintCommand(cfg, out, {
          json: values.json,
          licence: () => (opened.rt ??= runtime(cfg)).licence.view(),
        });
      } finally {
        opened.rt?.close();
      }
    }
    case 'ledger-verify': {
      const rt = runtime(config());
      try {
        const checkpoint =
          values.checkpoint !== undefined ? readFileSync(values.checkpoint, 'utf8') : undefined;
        const report = await rt.reader.verify(checkpoint !== undefined ? { checkpoint } : {});
        if (values.json) out.log(JSON.stringify(report, null, 2));
        if (report.failure) {
          if (!values.json)
            out.error(
              `ledger verify FAILED at seq ${String(report.failure.seq)} (${report.failure.check}): ${report.failure.message}`,
            );
          return 1;
        }
        if (!values.json)
          out.log(
            `ledger verifies: ${String(report.checked)} events, ${String(report.segments)} segments sealed through seq ${String(report.sealed_through)}, head seq ${String(report.head.seq)} (${String(report.events_per_s)} events/s)`,
          );
        return 0;
      } finally {
        rt.close();
      }
    }
    case 'licence': {
      if (positionals[0] !== 'clock-reset' || positionals.length !== 1) {
        out.error(`unknown licence command ${positionals.join(' ')}\n${CLOCK_RESET_USAGE}`);
        return 2;
      }
      const cfg = config();
      const unlock = lockDataDir(cfg.dataDir);
      const rt = runtime(cfg, { write: true });
      try {
        return await clockResetCommand(rt, out, { json: values.json, clock: systemClock });
      } finally {
        rt.close();
        unlock();
      }
    }
    case 'digest': {
      const rt = runtime(config());
      try {
        return await digestCommand(rt, positionals, { out: values.out, json: values.json }, out);
      } finally {
        rt.close();
      }
    }
    case 'licence-verify':
      return licenceVerifyCommand(positionals, values, out, { config, clock: systemClock });
    case 'doctor': {
      const rt = runtime(config());
      const connectors = connectorsOf(rt);
      try {
        const health = await checkAll(connectors);
        const report = await buildToolDoctor(rt, connectors, health).report(true);
        if (values.json) out.log(JSON.stringify(report, null, 2));
        else {
          for (const c of report.checks)
            out.log(
              `${mark(c.status)} ${c.area} / ${c.check}: ${c.detail}${c.hint !== '' ? ` (${c.hint})` : ''}`,
            );
          out.log(`overall: ${report.status}`);
        }
        return report.status === 'fail' ? 1 : 0;
      } finally {
        await connectors.close();
        rt.close();
      }
    }
    case 'connectors': {
      const [sub] = positionals;
      const cfg = config();
      if (sub === 'list') {
        for (const k of KINDS) out.log(`kind ${k.kind}: ${k.capabilities.join(', ')} — ${k.title}`);
        if (!existsSync(databaseFile(cfg.dataDir))) {
          out.log('no data folder yet: no connectors configured');
          return 0;
        }
        const rt = runtime(cfg);
        const connectors = connectorsOf(rt);
        try {
          const list = connectors.list();
          if (list.file !== null) out.log(`managed in ${list.file}`);
          if (list.connectors.length === 0) out.log('no connectors configured');
          for (const c of list.connectors) {
            out.log(`${c.name} (${c.kind})${c.problem === null ? '' : `: problem: ${c.problem}`}`);
          }
          return 0;
        } finally {
          await connectors.close();
          rt.close();
        }
      }
      if (sub === 'check') {
        const health = (await connectionHealth(cfg)) ?? [];
        if (values.json) out.log(JSON.stringify({ connectors: health }, null, 2));
        else if (health.length === 0) out.log('no connectors configured');
        else for (const h of health) out.log(healthLine(h));
        return health.some((h) => !h.ok) ? 1 : 0;
      }
      out.error(`svc-core connectors: use list or check\n${USAGE}`);
      return 2;
    }
    case 'checks':
      return checksCommand(rest, { out, config, runtime, connectorsOf });
    case 'packs': {
      // The licence as the service holds it, read-only; a folder with no data has none yet.
      const cfg = config();
      if (!existsSync(databaseFile(cfg.dataDir)))
        return packsCommand(positionals, values, out, { config, opens: noLicenceOpener });
      const rt = runtime(cfg);
      try {
        return await packsCommand(positionals, values, out, {
          config,
          opens: packOpener(rt.licence),
        });
      } finally {
        rt.close();
      }
    }
    case 'estate':
      return estateCommand(positionals, values, out, { config, runtime, connectorsOf });
    case 'preflight': {
      const cfg = config();
      const lines = await preflight(cfg, {
        deep: values.deep,
        connections: () => connectionHealth(cfg),
      });
      if (values.json)
        out.log(
          JSON.stringify(
            {
              status: lines.some((l) => l.status === 'fail')
                ? 'fail'
                : lines.some((l) => l.status === 'warn')
                  ? 'warn'
                  : 'ok',
              checks: lines,
            },
            null,
            2,
          ),
        );
      else for (const l of lines) out.log(`${mark(l.status)} ${l.check}: ${l.detail}`);
      return lines.some((l) => l.status === 'fail') ? 1 : 0;
    }
    case 'rebuild': {
      const cfg = config();
      const unlock = lockDataDir(cfg.dataDir);
      const rt = runtime(cfg, { write: true });
      try {
        const result = rebuildProjections(
          rt.db,
          rt.ledgerStore,
          rt.projections,
          values.check,
          (fn) => {
            rt.writer.transactNow(fn);
          },
        );
        const verdict =
          result.differing.length === 0
            ? 'rebuilt state equals the live one'
            : `differs in ${result.differing.join(', ')}`;
        out.log(
          `${values.check ? 'check' : 'rebuild'}: replayed ${String(result.events)} events into ${result.tables.join(', ')}; ${verdict}${result.applied ? '' : ' (nothing changed)'}`,
        );
        return values.check && result.differing.length > 0 ? 1 : 0;
      } finally {
        rt.close();
        unlock();
      }
    }
    default:
      out.error(command === undefined ? USAGE : `unknown command ${command}\n${USAGE}`);
      return 2;
  }
}

// Run only as the entry point (the bundle, or tsx), never when imported by tests.
const entry = process.argv[1] ?? '';
if (/svc-core\.(m?js|ts)$/.test(entry)) {
  run(process.argv.slice(2), {
    log: (l) => {
      process.stdout.write(`${l}\n`);
    },
    error: (l) => {
      process.stderr.write(`${l}\n`);
    },
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        `${err instanceof ConfigError ? err.message : `svc-core: ${err instanceof Error ? err.message : String(err)}`}\n`,
      );
      process.exitCode =
        err instanceof ConfigError ||
        (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
          ? 2
          : 1;
    },
  );
}
