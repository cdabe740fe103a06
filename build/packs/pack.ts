// The packing tool: validates pack sources and signs them.
//   tsx build/packs/pack.ts [--key FILE] [--out DIR] [src.json ...]
// Defaults: every build/packs/src/*.json, signed with the development pack key
// (build/packs/dev-pack-key.pem), written to build/packs/signed/<id>.pack.json. A source that
// fails the schema is not signed; the field and why are printed and the exit status is 1.
// The written files are then loaded back exactly as the service loads them, so a pack that
// signs here but would be refused there (a clashing check id) fails here first.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as prettier from 'prettier';
import {
  loadPacks,
  PACK_SUFFIX,
  packKeyId,
  signPack,
  TRUSTED_PACK_KEYS,
  validatePack,
  type Pack,
} from '../../server/packs/index.js';

const count = (n: number, one: string): string =>
  `${String(n)} ${one}${n === 1 ? '' : one.endsWith('x') ? 'es' : 's'}`;

const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

function sources(given: readonly string[]): string[] {
  if (given.length > 0) return [...given];
  const dir = here('./src/');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .sort()
    .map((n) => join(dir, n));
}

function readKey(file: string): KeyObject {
  const key = createPrivateKey(readFileSync(file, 'utf8'));
  packKeyId(key); // throws unless Ed25519
  return key;
}

/** One source → its pack, or the lines that say why not. */
function readSource(file: string): { pack: Pack } | { problems: string[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    return { problems: [`${file}: not JSON: ${(err as Error).message}`] };
  }
  const valid = validatePack(doc);
  if (!valid.ok) return { problems: valid.problems.map((p) => `${file}: ${p.message}`) };
  return { pack: valid.pack };
}

/** Formatted as the repository's prettier does, so `prettier --check .` passes on output. */
async function formatted(file: string, value: unknown): Promise<string> {
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(JSON.stringify(value), { ...options, filepath: file });
}

async function main(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { key: { type: 'string' }, out: { type: 'string' } },
    allowPositionals: true,
  });
  const keyFile = values.key ?? here('./dev-pack-key.pem');
  const outDir = values.out ?? here('./signed/');
  const key = readKey(keyFile);
  const keyId = packKeyId(key);
  const srcs = sources(positionals);
  if (srcs.length === 0) {
    process.stderr.write('packs: no sources (build/packs/src/*.json, or name files)\n');
    return 1;
  }

  let failed = false;
  const written = new Map<string, string>(); // pack id → source
  mkdirSync(outDir, { recursive: true });
  for (const src of srcs) {
    const read = readSource(src);
    if ('problems' in read) {
      for (const line of read.problems) process.stderr.write(`refused ${line}\n`);
      failed = true;
      continue;
    }
    const { pack } = read;
    const earlier = written.get(pack.id);
    if (earlier !== undefined) {
      process.stderr.write(`refused ${src}: pack id ${pack.id} is also the id of ${earlier}\n`);
      failed = true;
      continue;
    }
    written.set(pack.id, src);
    const out = join(outDir, `${pack.id}${PACK_SUFFIX}`);
    writeFileSync(out, await formatted(out, signPack(pack, key)));
    process.stdout.write(
      `signed ${basename(src)} → ${out} (${pack.id} v${String(pack.version)}, ${count(pack.checks.length, 'check')}, ${count(pack.causes.length, 'cause')}, ${count(pack.fixes.length, 'fix')})\n`,
    );
  }

  // Load the folder as the service would, trusting this key too so an unknown key is a
  // warning here rather than hiding every other problem.
  const trusted = TRUSTED_PACK_KEYS.some((k) => k.id === keyId)
    ? TRUSTED_PACK_KEYS
    : [...TRUSTED_PACK_KEYS, { id: keyId, name: basename(keyFile), key }];
  const check = loadPacks({ dirs: [outDir], trusted });
  for (const r of check.refused) {
    process.stderr.write(`the service would refuse ${r.file}: ${r.why}\n`);
    failed = true;
  }
  const stale = check.loaded.filter((p) => !written.has(p.id));
  for (const p of stale) process.stdout.write(`note: ${p.file} was not written by this run\n`);
  if (!TRUSTED_PACK_KEYS.some((k) => k.id === keyId)) {
    process.stderr.write(
      `warning: key ${keyId} (${keyFile}) is not trusted by this build (server/packs/trust.ts); the service will refuse these packs\n`,
    );
  }
  if (failed) process.stderr.write('packs: failed\n');
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`packs: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 2;
  },
);
