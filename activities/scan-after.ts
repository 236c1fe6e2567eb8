import { Context } from '@temporalio/activity';
import type { ScanWorkspaceInput, ScanWorkspaceResult } from './workspace/scan-workspace';

/** A workspace scan a cell's activity runs once the cell has ended (workflows/workspace-log.ts `logCellEnd`). */
export interface ScanAfter {
  scan?: ScanWorkspaceInput | null;
}

export interface Scanned {
  /** The scan's result; null when the input asked for none, or the scan failed or left the workspace to the workflow's own scan. */
  scanned?: ScanWorkspaceResult | null;
}

/**
 * `fn` followed by the workspace scan its input asks for, on the host that ran the cell, so the
 * workflow task that reads the cell's result dispatches no local activity for it. A failed scan
 * never fails the cell (its retry would ask the kernel again for nothing): the workflow's own
 * scan, with its retries, takes over. The scan's key answers a repeat with the first attempt's result.
 */
export function scanAfter<I, R>(
  scanWorkspace: (input: ScanWorkspaceInput) => Promise<ScanWorkspaceResult | null>,
  fn: (input: I) => Promise<R>,
): (input: I & ScanAfter) => Promise<R & Scanned> {
  return async ({ scan, ...work }) => {
    const result = await fn(work as I);
    if (!scan) return { ...result, scanned: null };
    try {
      return { ...result, scanned: await scanWorkspace(scan) };
    } catch (error) {
      Context.current().log.warn('workspace scan after the cell failed; the workflow scans again', { sessionId: scan.sessionId, error });
      return { ...result, scanned: null };
    }
  };
}
