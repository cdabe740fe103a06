// npm run bench:diagnosis: the diagnosis benchmark on the lab (diagnosis-lab.ts), printed and
// written to bench/diagnosis-results.local.json.
//
// Aims (issue 7): the right cause proven or linked in at least 95% of runs, no wrong cause
// ever proven, median alert → diagnosis under 30 s, every handover within 90 s. Aim (issue 8):
// with the model investigator (BENCH_INVESTIGATOR) the right share is no lower.
//
// Knobs: BENCH_RUNS (default 3), BENCH_FAULTS (case names, comma-separated), BENCH_WAIT_S
// (default 150), BENCH_INVESTIGATOR=loop|mcts (System 2 on the tiny test model),
// BENCH_CASSETTE (default bench/cassettes/diagnosis), BENCH_REPLAY (default auto).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { print, runDiagnosis, type ModelSetup } from './diagnosis-lab.js';

function models(): ModelSetup | null {
  const investigator = process.env['BENCH_INVESTIGATOR'];
  if (investigator === undefined || investigator === '') return null;
  if (investigator !== 'loop' && investigator !== 'mcts')
    throw new Error(`BENCH_INVESTIGATOR is loop or mcts, not ${JSON.stringify(investigator)}`);
  const replay = process.env['BENCH_REPLAY'] ?? 'auto';
  if (replay !== 'record' && replay !== 'replay' && replay !== 'auto')
    throw new Error(`BENCH_REPLAY is record, replay or auto, not ${JSON.stringify(replay)}`);
  return {
    investigator,
    replay,
    cassetteDir:
      process.env['BENCH_CASSETTE'] ?? join(import.meta.dirname, 'cassettes', 'diagnosis'),
  };
}

async function main(): Promise<void> {
  const runs = await runDiagnosis({
    runs: Number(process.env['BENCH_RUNS'] ?? 3),
    only: (process.env['BENCH_FAULTS'] ?? '').split(',').filter((s) => s !== ''),
    waitMs: Number(process.env['BENCH_WAIT_S'] ?? 150) * 1000,
    models: models(),
    net: '127.0.6',
    log: (line) => console.error(line),
  });
  const summary = print(runs);
  writeFileSync(
    join(import.meta.dirname, 'diagnosis-results.local.json'),
    `${JSON.stringify({ at: new Date().toISOString(), summary, runs }, null, 2)}\n`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
