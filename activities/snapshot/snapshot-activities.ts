import { Context } from '@temporalio/activity';
import { KernelLostError } from '../../errors';
import type { BlobRef, OversizeVariable, RestoreFailure, UnsavedVariable } from '../../schemas';
import type { BlobStore } from '../blob-store';
import type { KernelClient, KernelHost } from '../kernel/index';
import { buildManifest, parseManifest, parseRestoreReport, parseSnapshotReport, type SnapshotLimits } from './manifest';
import { restoreExpression, snapshotExpression } from './snapshot-code';
import { SnapshotError } from './snapshot-error';
import { clearRestore, layOutRestore, takeSpool } from './spool';

/**
 * Prime's caps (16 MiB per variable, 256 MiB in all) drop ordinary data frames. These bound
 * what one snapshot may hold in the kernel's memory (one pickle at a time) and on disk.
 */
export const DEFAULT_SNAPSHOT_LIMITS: SnapshotLimits = { maxVariableBytes: 256 * 2 ** 20, maxTotalBytes: 2 ** 30 };
const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** Blobs a worker remembers of its sessions' last snapshots: about 100 bytes each. */
const REMEMBERED_BLOBS = 100_000;

export interface SnapshotDeps {
  kernels: Pick<KernelClient, 'start' | 'runSilent' | 'interrupt'>;
  blobs: BlobStore;
  /** Each session's spool and restore directories (spool.ts): the kernel's only way to the blob store. */
  places: Pick<KernelHost, 'place'>;
  limits?: SnapshotLimits;
  /** How long one snapshot or restore may keep the kernel busy. */
  timeoutMs?: number;
  /** How many blobs of its sessions' last snapshots the worker remembers (REMEMBERED_BLOBS). */
  rememberBlobs?: number;
}

export interface SnapshotKernelInput {
  sessionId: string;
  /** seq of the session's last event whose effects the namespace holds. */
  coversSeq: number;
}

/** Every KernelSnapshotted field under the same name, plus newBlobs/newBytes (metrics, not logged). */
export interface SnapshotKernelResult {
  manifest: BlobRef;
  coversSeq: number;
  variables: number;
  bytes: number;
  unsaved: UnsavedVariable[];
  oversize: OversizeVariable[];
  /** Variable blobs stored for the first time by this snapshot, and their bytes; the rest were unchanged. */
  newBlobs: number;
  newBytes: number;
  durationMs: number;
}

export interface RestoreKernelInput {
  sessionId: string;
  manifest: BlobRef;
}

export interface RestoreKernelResult {
  restored: string[];
  failed: RestoreFailure[];
  durationMs: number;
}

export function createSnapshotActivities(deps: SnapshotDeps) {
  const { kernels, blobs, places } = deps;
  const limits = deps.limits ?? DEFAULT_SNAPSHOT_LIMITS;
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const rememberBlobs = deps.rememberBlobs ?? REMEMBERED_BLOBS;
  /** Per session, the blobs of the last snapshot this worker took: the store holds them, so the kernel does not write them again. */
  const stored = new Map<string, ReadonlySet<string>>();
  let remembered = 0;
  const remember = (sessionId: string, shas: ReadonlySet<string>) => {
    remembered += shas.size - (stored.get(sessionId)?.size ?? 0);
    stored.delete(sessionId);
    stored.set(sessionId, shas);
    // Those snapshotted longest ago go first: forgetting a session costs it one snapshot that writes every blob.
    for (const [id, old] of stored) {
      if (remembered <= rememberBlobs) break;
      stored.delete(id);
      remembered -= old.size;
    }
  };

  return {
    /**
     * Pickles the session's namespace into the blob store and stores its manifest. Does not
     * start a kernel: a missing or reset kernel is a KernelLostError, never an empty snapshot.
     */
    async snapshotKernel(input: SnapshotKernelInput): Promise<SnapshotKernelResult> {
      const started = performance.now();
      const { spool } = places.place(input.sessionId);
      const held = stored.get(input.sessionId) ?? new Set<string>();
      const value = await whileBeating(input.sessionId, kernels, () =>
        kernels.runSilent(input.sessionId, '', { expression: snapshotExpression({ sessionId: input.sessionId, blobsRoot: spool, stored: held, ...limits }), timeoutMs }),
      );
      const added = await takeSpool(spool, blobs);
      if (typeof value === 'object' && value !== null && 'unbound' in value) {
        // Restarted behind the client's back: its namespace is empty, not the session's.
        const bound = (value as { unbound: string | null }).unbound;
        throw new KernelLostError(input.sessionId, '', `kernel namespace was reset (the kernel is bound to ${bound ?? 'no session'}); restore it first`);
      }
      const report = parseSnapshotReport(value);
      // Those taken from the spool or held already are in the store: only the rest are asked for.
      for (const v of report.variables.filter((x) => !added.taken.has(x.sha256) && !held.has(x.sha256))) {
        if (!(await blobs.has(v.sha256))) {
          throw new SnapshotError(`the kernel stored ${v.name} as blob ${v.sha256}, which is neither in its spool nor in this worker's blob store`, {
            hint: `the kernel must write its pickles to ${spool}`,
          });
        }
      }
      const manifest = await blobs.put(Buffer.from(JSON.stringify(buildManifest(report, input.coversSeq, limits))));
      remember(input.sessionId, new Set(report.variables.map((v) => v.sha256)));
      return {
        manifest,
        coversSeq: input.coversSeq,
        variables: report.variables.length,
        bytes: report.bytes,
        unsaved: report.unsaved.map(({ name, reason }) => ({ name, reason })),
        oversize: report.oversize.map(({ name, size, limit }) => ({ name, size, limit })),
        newBlobs: added.blobs,
        newBytes: added.bytes,
        durationMs: Math.round(performance.now() - started),
      };
    },

    /**
     * Loads a snapshot into the session's kernel (starting one if needed); names the manifest
     * holds overwrite live ones. The kernel checks each blob's hash before unpickling it.
     */
    async restoreKernel(input: RestoreKernelInput): Promise<RestoreKernelResult> {
      const started = performance.now();
      const manifest = parseManifest(await blobs.get(input.manifest.sha256));
      await kernels.start(input.sessionId);
      const { restore } = places.place(input.sessionId);
      await layOutRestore(restore, blobs, manifest.variables.map((v) => v.sha256));
      const value = await whileBeating(input.sessionId, kernels, () =>
        kernels.runSilent(input.sessionId, '', { expression: restoreExpression({ blobsRoot: restore, manifest }), timeoutMs }),
      ).finally(() => clearRestore(restore));
      const report = parseRestoreReport(value);
      return {
        restored: report.restored,
        failed: report.failed.map(({ name, reason }) => ({ name, reason })),
        durationMs: Math.round(performance.now() - started),
      };
    },
  };
}

/** Heartbeats while `fn` runs, and interrupts the kernel if Temporal cancels the activity. */
async function whileBeating<T>(sessionId: string, kernels: Pick<KernelClient, 'interrupt'>, fn: () => Promise<T>): Promise<T> {
  const ctx = Context.current();
  const beat = setInterval(() => ctx.heartbeat(), 3_000);
  const stop = () => void kernels.interrupt(sessionId).catch(() => undefined);
  ctx.cancellationSignal.addEventListener('abort', stop);
  try {
    return await fn();
  } finally {
    clearInterval(beat);
    ctx.cancellationSignal.removeEventListener('abort', stop);
  }
}
