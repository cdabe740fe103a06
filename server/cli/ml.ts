// svc-core ml: the ML artefacts in SVC_ML_DIR. `list` says which are used and why the others
// are refused (as the doctor does); `sign` adds this install's signature to an artefact file,
// or with --key the signature of another Ed25519 key (the SVC_ML_TRUST key holder signs on
// their own machine with it). Signing needs the data folder's key file, nothing else.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import { INSTALL_KEY_FILE, loadOrCreateInstallKey, publicKeyFromDataDir } from '../ledger/index.js';
import { artefactFileOf, createMlArtefacts, signArtefact } from '../ml/index.js';

type Out = { log(line: string): void; error(line: string): void };

export const ML_USAGE = `  ml list [--json]                ML artefacts in SVC_ML_DIR: used, or refused and why;
                                  non-zero if any is refused
  ml sign FILE [--key PEM]        add this install's signature to an artefact file; with
                                  --key, that Ed25519 private key's instead`;

function installPublicKey(cfg: Config): KeyObject | null {
  try {
    return publicKeyFromDataDir(cfg.dataDir, 'ed25519');
  } catch {
    return null;
  }
}

function list(cfg: Config, json: boolean, out: Out): number {
  const report = createMlArtefacts({
    dir: cfg.ml.dir,
    installKey: () => installPublicKey(cfg),
    trust: cfg.ml.trust,
  }).report();
  if (json) {
    out.log(JSON.stringify(report, null, 2));
  } else {
    if (report.trustProblem !== null) out.log(`fail  ${report.trustProblem}`);
    for (const a of report.used)
      out.log(`used  ${a.file}: ${a.kind} ${a.name}, signed by ${a.signers.join(' and ')}`);
    for (const r of report.refused) out.log(`refused ${r.file}: ${r.why}`);
    if (report.used.length + report.refused.length === 0)
      out.log(`no ML artefacts in ${report.dir}${report.present ? '' : ' (no such folder)'}`);
  }
  return report.refused.length > 0 || report.trustProblem !== null ? 1 : 0;
}

function sign(cfg: Config, file: string, keyFile: string | undefined, out: Out): number {
  let key: KeyObject;
  if (keyFile !== undefined) {
    try {
      key = createPrivateKey(readFileSync(keyFile, 'utf8'));
    } catch (err) {
      out.error(`svc-core ml: --key ${keyFile}: ${(err as Error).message}`);
      return 1;
    }
  } else {
    // Load, never create: a new key here would be a new identity for the data folder.
    if (!existsSync(join(cfg.dataDir, INSTALL_KEY_FILE))) {
      out.error(
        `svc-core ml: no install key in ${cfg.dataDir}: start the service once, or pass --key`,
      );
      return 1;
    }
    key = loadOrCreateInstallKey(cfg.dataDir, { fips: false, name: 'ml' }).identityKey;
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    out.error(`svc-core ml: ${file}: ${(err as Error).message}`);
    return 1;
  }
  const parsed = artefactFileOf(value);
  if (typeof parsed === 'string') {
    out.error(`svc-core ml: ${file}: ${parsed}`);
    return 1;
  }
  let signed;
  try {
    signed = signArtefact(parsed, key);
  } catch (err) {
    out.error(`svc-core ml: ${(err as Error).message}`);
    return 1;
  }
  // A dot file beside it, renamed over: a reader never sees half a file (it skips dot files).
  const temp = join(dirname(file), `.${basename(file)}.signing`);
  writeFileSync(temp, `${JSON.stringify(signed, null, 2)}\n`);
  renameSync(temp, file);
  const by = signed.signatures.at(-1)?.key ?? '';
  out.log(`signed ${file} with key ${by}`);
  return 0;
}

export function mlCommand(args: readonly string[], cfg: () => Config, out: Out): number {
  const usage = (why: string): number => {
    out.error(`svc-core ml: ${why}\n${ML_USAGE}`);
    return 2;
  };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { json: { type: 'boolean', default: false }, key: { type: 'string' } },
      allowPositionals: true,
    });
  } catch (err) {
    return usage((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [sub, file, ...more] = positionals;
  if (sub === 'list' && file === undefined) return list(cfg(), values.json, out);
  if (sub === 'sign' && file !== undefined && more.length === 0)
    return sign(cfg(), file, values.key, out);
  return usage(sub === 'sign' ? 'sign takes one FILE' : 'use list or sign');
}
