// The snapshots domain: what-changed snapshots of every connector's setup (docs/snapshots.md).
export {
  createSnapshotsService,
  CHANGES_LIMIT,
  FRESH_MS,
  type ConnectorFreshness,
  type Freshness,
  type SnapshotChange,
  type SnapshotSource,
  type SnapshotsDeps,
  type SnapshotsService,
} from './snapshots.service.js';
export {
  createSnapshotsStore,
  SNAPSHOT_CHANGED,
  SNAPSHOT_FAILED,
  SNAPSHOT_RECOVERED,
  type SnapshotsStore,
} from './snapshots.store.js';
export { diffFacts, normaliseFacts, type Facts, type FactsDiff } from './snapshots.diff.js';
export { snapshotEvents, type SnapshotEvents } from './snapshots.events.js';
