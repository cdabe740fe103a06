// The benchmark runner (`npm run bench`, which bundles dist/server.mjs first). Runs every
// benchmark module of BENCHMARKS in order, prints one table of figures, and writes them to
// bench/results.json as {"figures": [{name, value, unit, baseline, ratio}]} so that later
// runs can be compared. Every figure is measured against a baseline taken in the same
// run; nothing here is a timed assertion (benchmarks never run in the test suite).
//
//   npm run bench                      all benchmarks, writes bench/results.json
//   npx tsx bench/run.ts ledger-verify only the named ones, writes bench/results.local.json
//
// Knobs (environment): BENCH_DURATION_S (measured seconds per HTTP target, default 10),
// BENCH_CONNECTIONS (default 32), BENCH_CPU_PROF=<dir> (profile the service child).
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';

/** An aim from the issue: the figure's value (or its ratio to the baseline) at least, or at
 * most, this. */
export type Aim =
  | { readonly on: 'value' | 'ratio'; readonly atLeast: number }
  | { readonly on: 'value' | 'ratio'; readonly atMost: number };

/** What a benchmark reports; the runner adds the ratio (value / baseline). */
export interface Figure {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** The baseline's value measured in the same run, or null when the figure has none. */
  readonly baseline: number | null;
  readonly aim?: Aim;
}

export interface BenchContext {
  /** A progress or detail line, printed as it happens (not a figure). */
  log(line: string): void;
  readonly durationS: number;
  readonly connections: number;
  readonly cpuProfDir: string | null;
}

export interface Benchmark {
  readonly name: string;
  readonly title: string;
  run(ctx: BenchContext): Promise<readonly Figure[]>;
}

/** Every benchmark, in run order. Adding one is one line here. */
const BENCHMARKS: readonly (() => Promise<{ default: Benchmark }>)[] = [
  () => import('./events-ingest.bench.js'),
  () => import('./alert-intake.bench.js'),
  () => import('./alert-storm.bench.js'),
  () => import('./ledger-verify.bench.js'),
  () => import('./episodes-list.bench.js'),
  () => import('./model-cost.bench.js'),
  () => import('./live-idle.bench.js'),
  () => import('./licence-verify.bench.js'),
];

interface ResultFigure {
  name: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
}

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`${name} must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

/** Enough digits to compare runs, not more. */
function round(n: number): number {
  if (!Number.isFinite(n)) return n;
  const abs = Math.abs(n);
  const digits = abs >= 1000 ? 0 : abs >= 10 ? 2 : 4;
  return Number(n.toFixed(digits));
}

function show(n: number | null): string {
  if (n === null) return '—';
  const abs = Math.abs(n);
  const digits = abs >= 1000 || Number.isInteger(n) ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString('en-GB', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function showAim(f: Figure, ratio: number | null): { aim: string; met: string } {
  if (f.aim === undefined) return { aim: '', met: '' };
  const subject = f.aim.on === 'ratio' ? ratio : f.value;
  if ('atMost' in f.aim) {
    const aim = `${f.aim.on} ≤ ${show(f.aim.atMost)}`;
    return { aim, met: subject === null ? 'n/a' : subject <= f.aim.atMost ? 'met' : 'NOT MET' };
  }
  const aim = `${f.aim.on} ≥ ${show(f.aim.atLeast)}`;
  return { aim, met: subject === null ? 'n/a' : subject >= f.aim.atLeast ? 'met' : 'NOT MET' };
}

function table(rows: readonly string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const numeric = new Set([1, 3, 4]);
  return rows
    .map((r, ri) =>
      r
        .map((cell, i) =>
          numeric.has(i) && ri > 0 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const ctxBase = {
    durationS: envInt('BENCH_DURATION_S', 10),
    connections: envInt('BENCH_CONNECTIONS', 32),
    cpuProfDir: process.env['BENCH_CPU_PROF'] ?? null,
  };
  const benches = (await Promise.all(BENCHMARKS.map((load) => load()))).map((m) => m.default);
  const unknown = only.filter((n) => !benches.some((b) => b.name === n));
  if (unknown.length > 0) {
    throw new Error(
      `unknown benchmark ${unknown.join(', ')}; there are ${benches.map((b) => b.name).join(', ')}`,
    );
  }
  const selected = only.length === 0 ? benches : benches.filter((b) => only.includes(b.name));

  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  process.stdout.write(
    `svc benchmarks: ${String(availableParallelism())} cores (${model}), Node ${process.version}, ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} (other work on the machine skews the figures)\n`,
  );

  const started = performance.now();
  const figures: { figure: Figure; ratio: number | null }[] = [];
  for (const bench of selected) {
    process.stdout.write(`\n▶ ${bench.name}: ${bench.title}\n`);
    const t0 = performance.now();
    const ctx: BenchContext = { ...ctxBase, log: (line) => process.stdout.write(`  ${line}\n`) };
    const out = await bench.run(ctx);
    for (const f of out) {
      const ratio = f.baseline === null || f.baseline === 0 ? null : f.value / f.baseline;
      figures.push({ figure: f, ratio });
    }
    process.stdout.write(`  (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
  }

  const rows = [['figure', 'value', 'unit', 'baseline', 'ratio', 'aim', 'met']];
  for (const { figure: f, ratio } of figures) {
    const { aim, met } = showAim(f, ratio);
    rows.push([
      f.name,
      show(f.value),
      f.unit,
      show(f.baseline),
      ratio === null ? '—' : ratio.toFixed(3),
      aim,
      met,
    ]);
  }
  process.stdout.write(`\n${table(rows)}\n`);

  const results: { figures: ResultFigure[] } = {
    figures: figures.map(({ figure: f, ratio }) => ({
      name: f.name,
      value: round(f.value),
      unit: f.unit,
      baseline: f.baseline === null ? null : round(f.baseline),
      ratio: ratio === null ? null : Number(ratio.toFixed(4)),
    })),
  };
  const file = new URL(
    only.length === 0 ? './results.json' : './results.local.json',
    import.meta.url,
  );
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  const missed = figures
    .filter(({ figure: f, ratio }) => showAim(f, ratio).met === 'NOT MET')
    .map(({ figure: f }) => f.name);
  process.stdout.write(
    `\nwrote ${file.pathname} (${String(results.figures.length)} figures) in ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (missed.length > 0 ? `; aims not met: ${missed.join(', ')}` : '; every aim met') +
      '\n',
  );
}

main().catch((err: unknown) => {
  process.stderr.write(
    `\nbenchmark FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
