// svc-core digest [DAY] [--out DIR] [--json]: the digest of one UTC day (yesterday by
// default), written as DAY.md with its chart beside it as DAY.svg, into <data>/digests or DIR.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDigestSource, type Runtime } from '../compose/index.js';
import { ServiceError } from '../shared/errors.js';

export const DIGEST_USAGE = `  digest [DAY] [--out DIR] [--json]
                                  write the digest of DAY (YYYY-MM-DD, UTC; yesterday by
                                  default) as DAY.md and DAY.svg into <data>/digests or DIR`;

type Out = { log(line: string): void; error(line: string): void };

/** Written beside, then renamed: a reader never sees half a file. */
function writeWhole(path: string, text: string): void {
  const tmp = `${path}.tmp-${String(process.pid)}`;
  writeFileSync(tmp, text, { mode: 0o640 });
  renameSync(tmp, path);
}

export async function digestCommand(
  rt: Runtime,
  positionals: readonly string[],
  options: { out?: string | undefined; json: boolean },
  out: Out,
): Promise<number> {
  if (positionals.length > 1) {
    out.error(`digest takes one day at most\n${DIGEST_USAGE}`);
    return 2;
  }
  const day = positionals[0] ?? new Date(rt.clock.now() - 86_400_000).toISOString().slice(0, 10);
  let digest;
  try {
    digest = await createDigestSource(rt).digest({ lastDay: day });
  } catch (err) {
    if (err instanceof ServiceError) {
      out.error(`${err.message}\n${DIGEST_USAGE}`);
      return 2;
    }
    throw err;
  }
  const dir = options.out ?? join(rt.config.dataDir, 'digests');
  mkdirSync(dir, { recursive: true });
  const md = join(dir, `${day}.md`);
  const svg = join(dir, `${day}.svg`);
  writeWhole(svg, digest.chart_svg);
  writeWhole(md, `${digest.markdown}\n![Incidents per day](${day}.svg)\n`);
  if (options.json) out.log(JSON.stringify(digest, null, 2));
  else out.log(`digest of ${day} written: ${md} (chart ${svg})`);
  return digest.ledger.ok ? 0 : 1;
}
