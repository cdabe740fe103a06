// Worker thread: copies the WAL back into the database file (a PASSIVE checkpoint) on its
// own connection whenever the writer says it committed, so the event loop never does it.
// PASSIVE never waits for the writer or readers; frames it cannot copy yet wait for the
// next run. The writer restarts the WAL once every frame is copied.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './open.js';

export interface CheckpointJob {
  readonly file: string;
  /** Past this many frames the WAL is started over (RESTART) after the PASSIVE copy. */
  readonly restartFrames: number;
}

/** What one checkpoint did: frames in the WAL, and how many of them are in the database. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

const { file, restartFrames } = workerData as CheckpointJob;
const db = openDatabase(file);
const checkpoint = db.prepare<[], CheckpointResult>('PRAGMA wal_checkpoint(PASSIVE)');
// The writer starts the WAL over only when a transaction of its begins with every frame
// copied; under a steady stream of commits that moment may never come, and the WAL would
// grow without end. RESTART waits for the writer's transaction to end and holds the next
// one back while it copies what PASSIVE left (little) and starts the WAL over.
const restart = db.prepare<[], CheckpointResult>('PRAGMA wal_checkpoint(RESTART)');

parentPort?.on('message', (message: 'run' | 'stop') => {
  if (message === 'stop') {
    db.close();
    process.exit(0); // in a worker thread: this thread only
  }
  let result = checkpoint.get();
  if (result !== undefined && result.log > restartFrames) result = restart.get() ?? result;
  if (result !== undefined) parentPort?.postMessage(result);
});
