// Test helpers of the models' use: a fake System 1 for the gates' unit tests (the integration
// tests use a real endpoint), and a ledger in a fresh directory with the models' events.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelRequest } from '../../../models/index.js';
import { systemClock } from '../../shared/clock.js';
import { openLedgerBench, type LedgerBench } from '../ledger-bench.js';
import { modelUseProjection, type ModelUse } from '../../investigate/models/service.js';

/** A System 1 that answers `answer` (or throws it), and remembers what it was asked. */
export function fakeModels(answer: unknown, configured = true) {
  const asked: ModelRequest[] = [];
  const models: ModelUse = {
    configured: (system) => configured && system === 's1',
    replayOnly: () => false,
    call: async (_system, request) => {
      asked.push(request);
      if (answer instanceof Error) throw answer;
      return {
        value: answer,
        usage: { prompt_tokens: 1, completion_tokens: 1 },
        model: 'fake',
        seconds: 0,
        cached: false,
      };
    },
    describe: () => ({ system2: null, system1: null, cassette: null }),
  };
  return { models, asked };
}

export interface ModelsBench extends LedgerBench {
  readonly dir: string;
  /** Closes the database and removes the directory. */
  close(): void;
}

/** A ledger in a fresh directory under `prefix`, with the models' events registered. */
export function openModelsBench(prefix: string): ModelsBench {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const bench = openLedgerBench(join(dir, 'db.sqlite'), systemClock);
  bench.projections.register(modelUseProjection);
  return {
    ...bench,
    dir,
    close: () => {
      bench.db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
