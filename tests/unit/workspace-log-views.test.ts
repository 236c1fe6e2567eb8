import type { BlobRef, RecurEventInput, StoredEvent, WorkspaceChanged } from '../../schemas';
import { diffStat, formatDiffStat, statSummary, workspaceChains } from '../../services/projector';
import { formatEventLine } from '../../services/cli/format-event';
import { sampleSession } from './event-samples';

const ref = (c: string): BlobRef => ({ sha256: c.repeat(64), size: 10 });

function scan(scanNo: number, base: string | null, manifest: string, over: Partial<WorkspaceChanged> = {}): RecurEventInput {
  return {
    type: 'WorkspaceChanged', workspace: '/w', reason: 'cell', requestId: null, scan: scanNo, baseManifest: base ? ref(base) : null, manifest: ref(manifest),
    diff: null, files: [], filesTotal: 0, overCapFiles: 0, overCapBytes: 0, ignored: null, git: null, netDiff: null, durationMs: 3, ...over,
  };
}
const stored = (events: RecurEventInput[], sessionId = 'r1') => sampleSession(sessionId, events).records as StoredEvent[];

const PATCH = [
  'diff --git a/src/app.py b/src/app.py', 'index 1..2 100644', '--- a/src/app.py', '+++ b/src/app.py', '@@ -1,3 +1,3 @@',
  ' keep', '-old', '+new', '+more', '--- not a header: a removed line starting with two dashes',
  'diff --git a/pic.png b/pic.png', 'new file mode 100644', 'index 0..3', 'Binary files /dev/null and b/pic.png differ',
  'diff --git a/gone.txt b/gone.txt', 'deleted file mode 100644', '--- a/gone.txt', '+++ /dev/null', '@@ -1 +0,0 @@', '-bye', '',
].join('\n');

describe('workspace log views (pure)', () => {
  test('the diff stat counts hunk lines per file (a `---` line inside a hunk is a deletion) and marks binaries', () => {
    expect(diffStat(PATCH)).toEqual([
      { path: 'src/app.py', added: 2, deleted: 2, binary: false },
      { path: 'pic.png', added: 0, deleted: 0, binary: true },
      { path: 'gone.txt', added: 0, deleted: 1, binary: false },
    ]);
    expect(formatDiffStat(diffStat(PATCH))).toEqual([
      ' src/app.py | 4 ++--',
      ' pic.png    | Bin',
      ' gone.txt   | 1 -',
      ' 3 files changed, 2 insertions(+), 3 deletions(-)',
    ]);
    expect(statSummary([{ path: 'a', added: 1, deleted: 0, binary: false }])).toBe(' 1 file changed, 1 insertion(+)');
    expect(formatDiffStat(diffStat(''))).toEqual([]);
  });

  test('scans that follow on from each other compose to the final hash, whatever order sessions logged them in', () => {
    const events = [...stored([scan(0, null, 'a'), scan(2, 'b', 'c')]), ...stored([scan(1, 'a', 'b')], 'r1/child')];
    expect(workspaceChains(events)).toEqual([{ workspace: '/w', scans: 3, final: ref('c'), breaks: [] }]);
  });

  test('a change no logged scan reported, or a scan logged twice, is a break naming the events', () => {
    const [chain] = workspaceChains(stored([scan(0, null, 'a'), scan(1, 'b', 'c'), scan(1, 'b', 'c')]));
    expect(chain!.breaks).toHaveLength(2);
    expect(chain!.breaks[0]).toMatch(/^r1\/1 \(scan 1\) starts from bbbbbbbbbbbb but r1\/0 \(scan 0\) ended at aaaaaaaaaaaa/);
    expect(chain!.breaks[1]).toBe('scan 1 is logged twice (r1/1, r1/2)');
  });

  test('a WorkspaceChanged line says when, how much, the hash and the git state', () => {
    const line = (e: RecurEventInput) => formatEventLine(stored([e])[0]!);
    expect(line(scan(0, null, 'a', { reason: 'start', git: { head: 'f'.repeat(40), branch: 'main', dirtyPaths: 2 } })))
      .toBe('r1 #0 WorkspaceChanged  start baseline hash aaaaaaaaaaaa git main@fffffff dirty 2');
    const files = [
      { path: 'a.txt', change: 'modified' as const, binary: false, overCap: false, oldHash: null, newHash: null, size: 3, linesAdded: 2, linesDeleted: 1, kind: 'file', sensitive: null },
      { path: 'big', change: 'added' as const, binary: false, overCap: true, oldHash: null, newHash: null, size: 9e6, linesAdded: 0, linesDeleted: 0, kind: 'file', sensitive: null },
    ];
    expect(line(scan(1, 'a', 'b', { files, filesTotal: 2, overCapFiles: 1, overCapBytes: 9e6 })))
      .toBe('r1 #0 WorkspaceChanged  cell 2 files +2 -1 (1 over cap) hash bbbbbbbbbbbb');
  });

  test('a WorkspaceChanged line counts the changes that run outside Recur: sensitive paths and git metadata', () => {
    const line = (e: RecurEventInput) => formatEventLine(stored([e])[0]!);
    const change = (path: string, kind: string, sensitive: string | null) =>
      ({ path, change: 'added' as const, binary: false, overCap: false, oldHash: null, newHash: null, size: 1, linesAdded: 1, linesDeleted: 0, kind, sensitive });
    const files = [
      change('.git/hooks/pre-commit', 'git-meta', null), change('.github/workflows/ci.yml', 'file', '.github/workflows/**'),
      change('Makefile', 'file', 'Makefile'), change('a.txt', 'file', null),
    ];
    expect(line(scan(1, 'a', 'b', { files, filesTotal: 4 })))
      .toBe('r1 #0 WorkspaceChanged  cell 4 files +4 -0 (2 sensitive, 1 git-meta) hash bbbbbbbbbbbb');
    expect(line(scan(1, 'a', 'b', { files: files.slice(0, 1), filesTotal: 1, overCapFiles: 2 })))
      .toBe('r1 #0 WorkspaceChanged  cell 1 file +1 -0 (1 git-meta, 2 over cap) hash bbbbbbbbbbbb');
  });

  test('a GitOperation line says what the host committed or branched for the agent', () => {
    const line = (e: RecurEventInput) => formatEventLine(stored([e])[0]!);
    const op = { previous: 'a'.repeat(40), commit: 'c'.repeat(40), message: null, files: [] as string[], filesTotal: 0 };
    expect(line({ type: 'GitOperation', op: 'commit', changed: true, branch: 'main', ...op, message: 'Fix add()\n\nRecur-Session: r1', files: ['calc.py', 'test_calc.py'], filesTotal: 2 }))
      .toBe('r1 #0 GitOperation  commit ccccccc on main "Fix add() …": calc.py, test_calc.py');
    expect(line({ type: 'GitOperation', op: 'commit', changed: false, branch: 'main', ...op })).toBe('r1 #0 GitOperation  nothing to commit');
    expect(line({ type: 'GitOperation', op: 'branch', changed: true, branch: 'recur/fix', ...op })).toBe('r1 #0 GitOperation  branch recur/fix at ccccccc');
  });
});
