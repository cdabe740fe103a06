// What the models cost per episode, from a replayed lab run (issue 8): the diagnosis benchmark
// on a few lab cases twice in the same run, first with no models (the baseline), then with the
// loop investigator, System 1 and the note answering from the committed cassette
// (bench/cassettes/diagnosis; a miss asks the tiny test model and is recorded). Figures: calls,
// tokens, recorded model seconds and investigator reads per episode, and the right share
// against the baseline's, so a change that makes the investigator wasteful, or wrong, shows.
//
// A note quotes readings (a commit's hash, a certificate's days), which differ from one lab to
// the next, so some requests are new each run: in the default `auto` mode they ask the tiny
// model (its seconds are then this run's) and are recorded in a scratch copy of the cassette,
// never in the committed one; the share replayed is a figure of its own.
//
// Knobs: BENCH_MODEL_FAULTS (default noise,service-down,disk-full,red-herring),
// BENCH_MODEL_REPLAY (default auto; replay answers from the committed cassette only, a miss
// being a failed call).
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDiagnosis, summarize } from './diagnosis-lab.js';
import type { Benchmark, Figure } from './run.js';

const CASES = (process.env['BENCH_MODEL_FAULTS'] ?? 'noise,service-down,disk-full,red-herring')
  .split(',')
  .filter((s) => s !== '');

const bench: Benchmark = {
  name: 'model-cost',
  title: 'models per episode on the lab: loop investigator from a cassette vs no models',
  async run(ctx): Promise<Figure[]> {
    const replay = process.env['BENCH_MODEL_REPLAY'] ?? 'auto';
    if (replay !== 'auto' && replay !== 'replay')
      throw new Error(`BENCH_MODEL_REPLAY is auto or replay, not ${JSON.stringify(replay)}`);
    const common = {
      runs: 1,
      only: CASES,
      waitMs: 150_000,
      net: '127.0.7',
      log: (line: string) => {
        ctx.log(line);
      },
    };
    ctx.log(`no models: ${CASES.join(', ')}`);
    const plain = summarize(await runDiagnosis({ ...common, models: null }));
    ctx.log('the loop investigator, replayed');
    const committed = join(import.meta.dirname, 'cassettes', 'diagnosis');
    const scratch = mkdtempSync(join(tmpdir(), 'bench-cassette-'));
    cpSync(committed, scratch, { recursive: true });
    let loop;
    try {
      loop = summarize(
        await runDiagnosis({
          ...common,
          models: {
            investigator: 'loop',
            replay,
            cassetteDir: replay === 'replay' ? committed : scratch,
          },
        }),
      );
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    return [
      {
        name: 'right share, loop investigator (baseline: no models)',
        value: loop.right_share ?? 0,
        unit: 'share',
        baseline: plain.right_share,
        aim: { on: 'ratio', atLeast: 1 },
      },
      {
        name: 'wrong causes proven, loop investigator',
        value: loop.wrong_proven,
        unit: 'runs',
        baseline: null,
        aim: { on: 'value', atMost: 0 },
      },
      {
        name: 'investigator runs past a bound (from the ledger)',
        value: loop.model_over_bounds,
        unit: 'runs',
        baseline: null,
        aim: { on: 'value', atMost: 0 },
      },
      {
        name: 'System 2 calls per episode',
        value: loop.model_calls,
        unit: 'calls',
        baseline: null,
      },
      {
        name: 'System 2 tokens per episode',
        value: loop.model_tokens,
        unit: 'tokens',
        baseline: null,
      },
      {
        name: 'System 2 seconds per episode (as recorded)',
        value: loop.model_seconds,
        unit: 's',
        baseline: null,
      },
      {
        name: 'investigator reads per episode',
        value: loop.model_reads,
        unit: 'reads',
        baseline: null,
      },
      {
        name: 'System 2 calls answered from the cassette',
        value: loop.model_replayed_share ?? 0,
        unit: 'share',
        baseline: null,
      },
      {
        name: 'failed System 2 calls per episode',
        value: loop.model_failed,
        unit: 'calls',
        baseline: null,
      },
    ];
  },
};
export default bench;
