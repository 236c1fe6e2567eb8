export {
  createSnapshotActivities, DEFAULT_SNAPSHOT_LIMITS,
  type SnapshotDeps, type SnapshotKernelInput, type SnapshotKernelResult, type RestoreKernelInput, type RestoreKernelResult,
} from './snapshot-activities';
export { MANIFEST_FORMAT, parseManifest, type SnapshotManifest, type ManifestVariable, type ManifestModule, type SnapshotLimits } from './manifest';
export { SnapshotError } from './snapshot-error';
