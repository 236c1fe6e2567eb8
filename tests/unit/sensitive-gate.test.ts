import { outsideChanges } from '../../workflows/approvals/outside-changes';
import type { RecurEventInput } from '../../schemas/generated/events';

type WorkspaceChanged = Extract<RecurEventInput, { type: 'WorkspaceChanged' }>;
const change = (path: string, kind: string, sensitive: string | null, c: 'added' | 'modified' | 'deleted' = 'added') =>
  ({ path, change: c, binary: false, overCap: false, oldHash: null, newHash: null, size: 1, linesAdded: 0, linesDeleted: 0, kind, sensitive });
const scan = (files: ReturnType<typeof change>[]): WorkspaceChanged => ({
  type: 'WorkspaceChanged', workspace: '/w', reason: 'cell', requestId: 'r/1', scan: 1, baseManifest: null, manifest: { sha256: 'a'.repeat(64), size: 1 },
  diff: null, files, filesTotal: files.length, overCapFiles: 0, overCapBytes: 0, ignored: null, git: null, netDiff: null, durationMs: 1,
});

describe('what a sensitive-path approval names', () => {
  test('git metadata and sensitive paths, each with how it changed and why; nothing else', () => {
    expect(outsideChanges(scan([
      change('.git/hooks/pre-commit', 'git-meta', null), change('Makefile', 'file', 'Makefile', 'modified'), change('a.txt', 'file', null),
    ]))).toEqual(['.git/hooks/pre-commit added (git metadata)', 'Makefile modified (Makefile)']);
  });

  test('a scan with nothing flagged, or none at all, names nothing', () => {
    expect(outsideChanges(scan([change('a.txt', 'file', null)]))).toEqual([]);
    expect(outsideChanges(null)).toEqual([]);
  });
});
