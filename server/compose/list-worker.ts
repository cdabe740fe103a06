// A read worker of the episode list (server/db/read-pool.ts starts it): its own read-only
// connection, its own in-memory index that catches up from the episodes table, and one list
// answer per job, read in one snapshot that holds at least the job's ledger seq.
import { workerData } from 'node:worker_threads';
import { openDatabase } from '../db/open.js';
import { serveReads } from '../db/read-worker.js';
import {
  createEpisodeIndex,
  createEpisodeListStore,
  createEpisodesStore,
  createListReader,
  type ListJob,
  type ListPage,
} from '../episodes/index.js';
import { createIncidentsStore } from '../incidents/index.js';
import { createLedgerStore } from '../ledger/index.js';
import { StorageUnavailableError } from '../shared/errors.js';
import { EPISODE_INPUTS } from './event-catalogue.js';

export interface ListWorkerData {
  readonly file: string;
  /** How long a job may wait for its snapshot to reach its seq (the writer's commit). */
  readonly behindMs: number;
}

const { file, behindMs } = workerData as ListWorkerData;
const db = openDatabase(file, { readonly: true });
const ledger = createLedgerStore(db);
const reader = createListReader({
  index: createEpisodeIndex(db),
  store: createEpisodeListStore(
    db,
    createIncidentsStore(db, createEpisodesStore(db, EPISODE_INPUTS)),
  ),
  headSeq: () => ledger.head().seq,
});
const inSnapshot = db.transaction((job: ListJob) => reader.read(job));
const pause = new Int32Array(new SharedArrayBuffer(4));

serveReads(
  () => {
    reader.warm();
  },
  (job: ListJob): ListPage => {
    const until = Date.now() + behindMs;
    for (;;) {
      const page = inSnapshot(job);
      if (page !== null) return page;
      // The seq the request saw committed is not in this snapshot yet; a new one will hold
      // it (WAL readers see every commit made before they begin).
      if (Date.now() > until)
        throw new StorageUnavailableError(
          'reads_behind',
          `the reader does not see seq ${String(job.minSeq)} after ${String(behindMs)} ms; retry`,
        );
      Atomics.wait(pause, 0, 0, 2);
    }
  },
);
