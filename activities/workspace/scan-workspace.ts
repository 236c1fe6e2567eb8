import { existsSync } from 'node:fs';
import type { BlobRef, WorkspaceChanged, WorkspaceFileChange } from '../../schemas/generated/events';
import { WORKSPACE_FILES } from '../../schemas/field-limits';
import type { BlobStore } from '../blob-store';
import type { KernelHost } from '../kernel/types';
import {
  decodeManifest, encodeManifest, manifestOf, mergeChanges, overCapChanges, parseDiffTree, sameManifest, type WorkspaceManifest,
} from './manifest';
import { diffTrees, gitState, ignoredSummary, indexIdentity, openShadow, patchOf, scanTree, type ShadowRepo } from './shadow-repo';
import { gitMetaChanges, gitMetaPrint, gitMetaRoots } from './git-meta';
import { git as runGit } from './git';
import { DEFAULT_SENSITIVE_PATHS, compileSensitiveRules, markSensitive, orderChanges } from './sensitive-paths';
import { statFingerprint } from './stat-fingerprint';
import { createWorkspaceRecord, type WorkspaceChangedFields, type WorkspaceRecord } from './workspace-record';

export type { WorkspaceChangedFields };

export interface ScanWorkspaceInput {
  sessionId: string;
  reason: WorkspaceChanged['reason'];
  /** The cell's CellRequested id (reason cell). */
  requestId: string | null;
  /** Names this scan: a retry with the same key is answered by the first attempt's result. */
  key: string;
  /** End scans: the manifest the session's start scan logged, for the net diff. */
  startManifest: BlobRef | null;
}

export interface ScanWorkspaceResult {
  /** null: nothing to log (nothing changed since the workspace's last scan, no repository state, no net diff). */
  event: WorkspaceChangedFields | null;
  /** The workspace's manifest after this scan, logged or not: a start scan's is where the session's net diff starts. */
  manifest: BlobRef;
}

interface WorkspaceDeps {
  blobs: BlobStore;
  places: Pick<KernelHost, 'place'>;
  /** Where shadow repositories live (stackPaths().workspaceLog). */
  root: string;
  maxFileBytes: number;
  /** Tells Temporal the scan is alive (the activity context's heartbeat); absent outside an activity. */
  heartbeat?: () => void;
  /** The scan records and their lock, shared with Recur's own git writes in this process; absent: this module's own. */
  record?: WorkspaceRecord;
  /** Sensitive-path rules (config.worker.sensitivePaths, already checked); absent: the defaults. */
  sensitivePaths?: readonly string[];
}

/**
 * The walk that may stand in for git (stat-fingerprint.ts): an entry changed within 2 s is known
 * by its bytes too, which covers a timestamp tick of a second; a workspace of more entries, or with
 * more bytes changed that recently, is always scanned by git, as a walk would cost what git's does.
 */
const FINGERPRINT = { settleMs: 2_000, maxEntries: 2_000, maxRecentBytes: 4 * 1024 * 1024 };

export function createWorkspaceActivities(deps: WorkspaceDeps) {
  const { blobs } = deps;
  const record = deps.record ?? createWorkspaceRecord(deps.root);
  const sensitive = compileSensitiveRules(deps.sensitivePaths ?? DEFAULT_SENSITIVE_PATHS);
  // Whether a workspace is a repository's top is looked up once per process, not per cell.
  const shadows = new Map<string, Promise<ShadowRepo>>();
  const shadowOf = (workspace: string): Promise<ShadowRepo> => {
    let s = shadows.get(workspace);
    if (!s) {
      s = openShadow(deps.root, workspace);
      shadows.set(workspace, s);
      // One that does not exist yet is opened again once it does: only then is its enclosing repository known.
      s.then(() => existsSync(workspace) || shadows.delete(workspace), () => shadows.delete(workspace));
    }
    return s;
  };
  /** By workspace: the fingerprint of the workspace as the scan recorded as `by` found it, and the shadow index that scan left. */
  const still = new Map<string, { by: string; print: string; index: string | null }>();
  /** Workspaces found over the entries limit: no longer walked by this process. */
  const large = new Set<string>();
  const fingerprint = (s: ShadowRepo): string | null => {
    if (large.has(s.dir)) return null;
    const f = statFingerprint(s.workspace, { ...FINGERPRINT, also: s.inputs });
    if (f.print === null && f.why === 'entries') large.add(s.dir);
    return f.print;
  };
  async function changes(s: ShadowRepo, base: WorkspaceManifest, now: WorkspaceManifest, sizes: ReadonlyMap<string, number>) {
    if (base.tree === now.tree) return { files: overCapChanges(base.overCap, now.overCap), diff: null };
    const d = await diffTrees(s, base.tree, now.tree);
    const files = mergeChanges(parseDiffTree(d.listing, sizes), overCapChanges(base.overCap, now.overCap));
    return { files, diff: d.patch.length ? await blobs.put(d.patch) : null };
  }

  async function netDiff(s: ShadowRepo, start: BlobRef | null, now: WorkspaceManifest): Promise<BlobRef | null> {
    if (!start) return null;
    const from = decodeManifest(await blobs.get(start.sha256)).tree;
    if (from === now.tree) return null;
    const patch = await patchOf(s, from, now.tree);
    return patch.length ? blobs.put(patch) : null;
  }

  /** `bounded`: a workspace the walk cannot cover is left to another scan (null), before anything is recorded. */
  async function scan(input: ScanWorkspaceInput, s: ShadowRepo, bounded: false): Promise<ScanWorkspaceResult>;
  async function scan(input: ScanWorkspaceInput, s: ShadowRepo, bounded: boolean): Promise<ScanWorkspaceResult | null>;
  async function scan(input: ScanWorkspaceInput, s: ShadowRepo, bounded: boolean): Promise<ScanWorkspaceResult | null> {
    const t0 = Date.now();
    const latest = await record.read(s.dir);
    // This scan's earlier attempt got as far as recording itself: its result is the answer.
    if (latest?.by === input.key) return { event: latest.event, manifest: latest.manifest };
    const edge = input.reason !== 'cell';
    // Walked before git runs: a change made while git runs shows in the next scan's walk.
    const print = fingerprint(s);
    if (bounded && print === null) return null;
    const known = still.get(s.dir);
    // Git's metadata by its own walk (git skips .git): compared with the latest scan's, which took in Recur's own git writes since.
    const gitMeta = gitMetaPrint(s.workspace, gitMetaRoots(s.workspace, s.repo));
    const metaFiles = latest?.gitMeta ? gitMetaChanges(latest.gitMeta, gitMeta, s.workspace, deps.maxFileBytes) : [];
    const quiet = metaFiles.length === 0;
    // Nothing changed since the latest scan, and no other scan since, by any session or process: no git run.
    if (!edge && quiet && latest && print !== null && known?.by === latest.by && known.print === print && known.index === await indexIdentity(s.env.GIT_INDEX_FILE)) {
      return { event: null, manifest: latest.manifest };
    }
    const remember = async (by: string) => {
      if (print === null) still.delete(s.dir);
      else still.set(s.dir, { by, print, index: await indexIdentity(s.env.GIT_INDEX_FILE) });
    };
    const { tree, overCap, sizes } = await scanTree(s, deps.maxFileBytes);
    const now = manifestOf(tree, overCap);
    const base = latest?.state ?? null;
    if (!edge && quiet && latest && sameManifest(latest.state, now)) {
      await remember(latest.by);
      return { event: null, manifest: latest.manifest };
    }
    const found = base ? await changes(s, base, now, sizes) : { files: [] as WorkspaceFileChange[], diff: null };
    const { diff } = found;
    // A `#key` rule compares the file's two blobs, which the shadow's object store holds.
    const readBlob = async (hash: string) => (await runGit(['cat-file', 'blob', hash], { env: s.env })).stdout.toString('utf8');
    const files = orderChanges([...metaFiles, ...(await markSensitive(found.files, sensitive, readBlob))]);
    const manifest = await blobs.put(encodeManifest(now));
    const scanNo = latest ? latest.scan + 1 : 0;
    const git = edge ? await gitState(s, tree, overCap) : null;
    const net = input.reason === 'end' ? await netDiff(s, input.startManifest, now) : null;
    // Logged when it says something: a change, a repository's state, a net diff. A first scan of a
    // plain directory is a baseline the next scans compare against, recorded here only.
    const worthLogging = files.length > 0 || git !== null || net !== null;
    const event: WorkspaceChangedFields | null = worthLogging ? {
      workspace: s.workspace, reason: input.reason, requestId: input.requestId, scan: scanNo, baseManifest: latest?.manifest ?? null, manifest, diff,
      files: files.slice(0, WORKSPACE_FILES), filesTotal: files.length,
      overCapFiles: overCap.length, overCapBytes: overCap.reduce((n, [, size]) => n + size, 0),
      ignored: edge ? await ignoredSummary(s) : null, git, netDiff: net, durationMs: Date.now() - t0,
    } : null;
    await record.write(s.dir, { manifest, state: now, by: input.key, scan: scanNo, event, gitMeta });
    await remember(input.key);
    return { event, manifest };
  }

  return {
    /**
     * Scans the session's workspace against the workspace's last scan (by any session), records
     * this scan as the workspace's latest, and returns the event to log. The record is written
     * before the activity returns, so a retry returns the same event and a scan by another
     * session sharing the workspace never reports these changes again.
     */
    scanWorkspace: (input: ScanWorkspaceInput): Promise<ScanWorkspaceResult> => serial(input, (s) => scan(input, s, false)),
    /**
     * The same, made by a cell's activity once the cell has ended (activities/scan-after.ts); null,
     * with nothing recorded, for a workspace over the walk's limits, whose git runs could outlast
     * the time the cell's activity has left: the workflow's own scan takes it.
     */
    scanAfterCell: (input: ScanWorkspaceInput): Promise<ScanWorkspaceResult | null> => serial(input, (s) => scan(input, s, true)),
  };

  async function serial<T>(input: ScanWorkspaceInput, fn: (s: ShadowRepo) => Promise<T>): Promise<T> {
    const beat = deps.heartbeat ? setInterval(deps.heartbeat, 3_000) : undefined;
    try {
      const s = await shadowOf(deps.places.place(input.sessionId).workspace);
      return await record.one(s.dir, () => fn(s));
    } finally {
      clearInterval(beat);
    }
  }
}
