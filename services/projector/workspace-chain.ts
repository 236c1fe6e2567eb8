import type { BlobRef, StoredEvent, WorkspaceChanged } from '../../schemas';

export interface WorkspaceChain {
  workspace: string;
  scans: number;
  /** The manifest of the workspace's last logged scan: the tree's final workspace hash is its sha256. */
  final: BlobRef;
  /** Places where the logged scans do not follow on from each other. */
  breaks: string[];
}

type Scan = { event: WorkspaceChanged; eventId: string };

/**
 * Per workspace, whether the tree's logged scans compose: ordered by scan number, each starts
 * from the manifest the one before it ended at. A break means something changed the workspace
 * that no logged scan of this tree reported (another tree or a hand outside any session, or a
 * scan whose event was lost); a repeated number means a scan was logged twice. Pure.
 */
export function workspaceChains(events: readonly StoredEvent[]): WorkspaceChain[] {
  const by = new Map<string, Scan[]>();
  for (const e of events) {
    if (e.event.type !== 'WorkspaceChanged') continue;
    const list = by.get(e.event.workspace) ?? [];
    by.set(e.event.workspace, list);
    list.push({ event: e.event, eventId: e.eventId });
  }
  return [...by].map(([workspace, scans]) => {
    scans.sort((a, b) => a.event.scan - b.event.scan);
    const breaks: string[] = [];
    for (let i = 1; i < scans.length; i++) {
      const [prev, cur] = [scans[i - 1]!, scans[i]!];
      if (cur.event.scan === prev.event.scan) breaks.push(`scan ${cur.event.scan} is logged twice (${prev.eventId}, ${cur.eventId})`);
      else if (cur.event.baseManifest?.sha256 !== prev.event.manifest.sha256) {
        breaks.push(`${cur.eventId} (scan ${cur.event.scan}) starts from ${short(cur.event.baseManifest)} but ${prev.eventId} (scan ${prev.event.scan}) ended at ${short(prev.event.manifest)}: changes between them are not in this log`);
      }
    }
    return { workspace, scans: scans.length, final: scans.at(-1)!.event.manifest, breaks };
  });
}

const short = (ref: BlobRef | null): string => (ref ? ref.sha256.slice(0, 12) : 'nothing (a first scan)');

/** The session's own end scan, which carries its net diff; undefined until it has ended. */
export function endScanOf(events: readonly StoredEvent[], sessionId: string): WorkspaceChanged | undefined {
  const own = events.filter((e) => e.sessionId === sessionId && e.event.type === 'WorkspaceChanged' && e.event.reason === 'end');
  return own.at(-1)?.event as WorkspaceChanged | undefined;
}
