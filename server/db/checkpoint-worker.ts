// Worker thread: copies the WAL back into the database file (a PASSIVE checkpoint) on its
// own connection whenever the writer says it committed, so the event loop never does it.
// PASSIVE never waits for the writer or readers; frames it cannot copy yet wait for the
// next run. The writer restarts the WAL once every frame is copied.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './open.js';

export interface CheckpointJob {
  readonly file: string;
}

/** What one checkpoint did: frames in the WAL, and how many of them are in the database. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

const { file } = workerData as CheckpointJob;
const db = openDatabase(file);
const checkpoint = db.prepare<[], CheckpointResult>('PRAGMA wal_checkpoint(PASSIVE)');

parentPort?.on('message', (message: 'run' | 'stop') => {
  if (message === 'stop') {
    db.close();
    process.exit(0); // in a worker thread: this thread only
  }
  const result = checkpoint.get();
  if (result !== undefined) parentPort?.postMessage(result);
});
