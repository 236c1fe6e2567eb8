import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../activities/blob-store';
import type { KernelClient } from '../../activities/kernel';
import { renderOutputs } from '../../activities/run-cell';
import { KernelLostError } from '../../errors';
import type { StoredEvent } from '../../schemas';
import { compareCell, planCellReplay, type CellOutcome, type CellVerdict, type PlannedCell } from '../../log/plan-cell-replay';

export interface CellReport {
  readonly sessionId: string;
  /** The CellExecuted checked. */
  readonly eventId: string;
  readonly code: string;
  /** skipped: the plan says not to run it; unchecked: the logged cell could not be read (missing blob). */
  readonly verdict: CellVerdict['kind'] | 'skipped' | 'unchecked';
  readonly detail: string | null;
  readonly logged: CellOutcome | null;
  readonly replay: CellOutcome | null;
}

export interface ReplayCellsDeps {
  /** A client with no host bridge, so host calls fail in the replay kernel instead of acting. */
  kernels: Pick<KernelClient, 'start' | 'execute' | 'shutdown'>;
  blobs: Pick<BlobStore, 'get'>;
  /** Told of each cell as soon as it is checked. */
  onReport?: (report: CellReport) => void;
}

const text = async (blobs: ReplayCellsDeps['blobs'], sha256: string): Promise<string> => (await blobs.get(sha256)).toString('utf8');

async function runOne(deps: ReplayCellsDeps, kernelSession: string, cell: PlannedCell): Promise<CellReport> {
  const base = { sessionId: cell.sessionId, eventId: cell.eventId };
  let code = cell.code;
  let logged: CellOutcome;
  try {
    if (cell.codeBlob) code = await text(deps.blobs, cell.codeBlob.sha256);
    const l = cell.logged;
    logged = { status: l.status, output: l.outputsBlob ? await text(deps.blobs, l.outputsBlob.sha256) : l.outputs, errorName: l.errorName, errorValue: l.errorValue };
  } catch (e) {
    return { ...base, code, verdict: 'unchecked', detail: `cannot read the logged cell: ${(e as Error).message}`, logged: null, replay: null };
  }
  if (cell.skip) return { ...base, code, verdict: 'skipped', detail: cell.skip, logged, replay: null };
  let replay: CellOutcome;
  try {
    await deps.kernels.start(kernelSession);
    const r = await deps.kernels.execute(kernelSession, code, { timeoutMs: cell.timeoutSeconds * 1000 });
    replay = { status: r.status, output: renderOutputs(r), errorName: r.error?.ename ?? null, errorValue: r.error?.evalue ?? null };
  } catch (e) {
    if (!(e instanceof KernelLostError)) throw e;
    replay = { status: 'interrupted', output: `[the replay kernel was lost: ${e.message}]`, errorName: 'KernelLostError', errorValue: e.message };
  }
  const verdict = compareCell(logged, replay);
  return { ...base, code, verdict: verdict.kind, detail: verdict.kind === 'same' ? null : verdict.detail, logged, replay };
}

/**
 * Runs every logged cell of a session tree again, each session in a fresh kernel of its own and
 * its cells in seq order, and compares each with its CellExecuted. Kernels are shut down
 * afterwards, whatever happened.
 */
export async function replayCells(deps: ReplayCellsDeps, events: readonly StoredEvent[]): Promise<CellReport[]> {
  const bySession = new Map<string, StoredEvent[]>();
  for (const e of events) {
    const list = bySession.get(e.sessionId) ?? [];
    bySession.set(e.sessionId, list);
    list.push(e);
  }
  const run = randomUUID();
  const started: string[] = [];
  const reports: CellReport[] = [];
  try {
    for (const sessionId of [...bySession.keys()].sort()) {
      // A name of its own, so a replay never binds to (or shuts down) a live session's kernel.
      const kernelSession = `replay-${run}/${sessionId}`;
      for (const cell of planCellReplay(bySession.get(sessionId)!)) {
        if (!started.includes(kernelSession)) started.push(kernelSession);
        const report = await runOne(deps, kernelSession, cell);
        reports.push(report);
        deps.onReport?.(report);
      }
    }
  } finally {
    await Promise.all(started.map((s) => deps.kernels.shutdown(s).catch(() => undefined)));
  }
  return reports;
}
