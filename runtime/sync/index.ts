export { folderDigest, folderFromSnapshot, type SnapshotFolder } from './snapshot-folder.js';
export {
  createSnapshotPoller,
  type SnapshotPoller,
  type SnapshotPollerOptions,
  type SyncOutcome,
  type SyncTimers,
  snapshotUrl,
} from './snapshot-poller.js';
