// A read-pool worker for the pool's own tests (server/db/read-pool.test.ts): each job names
// what the worker does with it, the failures included.
import { threadId, workerData } from 'node:worker_threads';
import { serveReads } from '../../db/read-worker.js';
import { InvalidInputError } from '../../shared/errors.js';

export type StubJob =
  | { readonly do: 'echo'; readonly value: number }
  | { readonly do: 'spin'; readonly ms: number }
  | { readonly do: 'invalid' }
  | { readonly do: 'throw' }
  | { readonly do: 'exit' };

export interface StubAnswer {
  readonly value: number;
  readonly thread: number;
}

const { failStart } = workerData as { failStart?: boolean };

serveReads(
  () => {
    if (failStart === true) throw new Error('cannot open the store');
  },
  (job: StubJob): StubAnswer => {
    switch (job.do) {
      case 'echo':
        return { value: job.value, thread: threadId };
      case 'spin': {
        const until = Date.now() + job.ms;
        while (Date.now() < until);
        return { value: job.ms, thread: threadId };
      }
      case 'invalid':
        throw new InvalidInputError('invalid_input', 'query is not a query', { field: 'query' });
      case 'throw':
        throw new Error('index out of step');
      case 'exit':
        process.exit(3);
        break;
    }
  },
);
