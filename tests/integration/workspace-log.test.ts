import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalBlobStore } from '../../activities/blob-store';
import type { WorkspaceChanged } from '../../schemas';
import { stackPaths } from '../../config/home-paths';
import { createKernelHost } from '../../services/sandbox';
import { status } from '../../services/devstack';
import { carriedBatches } from '../helpers/carried-batches';
import { cliInProcess } from '../helpers/cli-in-process';
import { SessionHarness, py } from '../helpers/session-harness';
import { procStat } from '../helpers/process-tree';
import { runOnStackWorker } from '../helpers/stack-session';

/** Every change a session's cells make on disk, in the log (real Temporal, Kafka, Jupyter kernels, git). */
const cli = (args: string[]) => cliInProcess(args);

/** The git spawner (activities/workspace/git.ts) a process started: its child running `node -e`. */
function spawnersOf(pid: number): number[] {
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number).filter((p) => {
    if (procStat(p)?.ppid !== pid) return false;
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')[1] === '-e';
    } catch {
      return false;
    }
  });
}

describe('workspace log', () => {
  const h = new SessionHarness();
  const blobs = createLocalBlobStore(stackPaths(h.config).blobs);
  const text = async (ref: { sha256: string } | null) => (ref ? (await blobs.get(ref.sha256)).toString('utf8') : '');
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  // A budget makes the workflow take each step itself (workflows/worker-steps.ts); without one the worker runs them.
  test.each([
    ['the workflow runs the steps', { maxTokens: 100_000_000 }],
    ['the worker runs the steps', {}],
  ])('cells that add, modify and delete files are WorkspaceChanged events with their diffs; recur diff prints the net change; --verify checks the disk (%s)', async (by, budget) => {
    const run = await h.run({
      root: [
        py(`
open('notes.txt', 'w').write('alpha\\nbeta\\n')
open('blob.bin', 'wb').write(bytes(range(256)))
open('doomed.txt', 'w').write('short-lived\\n')`),
        py(`
import os
open('notes.txt', 'w').write('alpha\\nBETA\\ngamma\\n')
os.remove('blob.bin')
os.remove('doomed.txt')`),
        py('print(open("notes.txt").read().count("a"))'),
        'done',
      ],
    }, 'test task', budget);
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const workspace = createKernelHost(h.config).place(run.id).workspace;
    // A fresh plain directory: its baseline is unlogged; the third cell changed nothing, so no event after it.
    expect(run.types().filter((t) => t === 'CellExecuted' || t === 'WorkspaceChanged' || t === 'SessionCompleted')).toEqual([
      'CellExecuted', 'WorkspaceChanged', 'CellExecuted', 'WorkspaceChanged', 'CellExecuted', 'WorkspaceChanged', 'SessionCompleted',
    ]);
    // A cell's end and what it changed go to the log in one append: a step that writes files costs no extra round trip.
    const batches = carriedBatches(await h.client.workflow.getHandle(run.id).fetchHistory());
    const holding = (type: string) => batches.filter((b) => b.types.includes(type));
    if (by === 'the workflow runs the steps') {
      expect(holding('CellExecuted').map((b) => b.types)).toEqual([['CellExecuted', 'WorkspaceChanged'], ['CellExecuted', 'WorkspaceChanged'], ['CellExecuted']]);
      // A step's events ride its next activity: none takes an append activity of its own.
      expect(holding('CellExecuted').map((b) => b.by)).not.toContain('appendEvents');
      expect(holding('CellRequested').map((b) => [b.by, b.types])).toEqual(Array(3).fill(['runCell', ['ModelCalled', 'CellRequested']]));
    } else {
      // The first cell places the session; the worker's steps log the rest, each with what it changed.
      expect(holding('CellRequested').map((b) => [b.by, b.types])).toEqual([['runCell', ['ModelCalled', 'CellRequested']]]);
    }
    const [first, second, end] = run.of('WorkspaceChanged') as WorkspaceChanged[];
    const row = (e: WorkspaceChanged) => e.files.map((f) => [f.path, f.change, f.binary]);
    expect(first).toMatchObject({ workspace, reason: 'cell', git: null });
    expect(row(first!)).toEqual([['blob.bin', 'added', true], ['doomed.txt', 'added', false], ['notes.txt', 'added', false]]);
    expect(second!.baseManifest).toEqual(first!.manifest);
    expect(row(second!)).toEqual([['blob.bin', 'deleted', true], ['doomed.txt', 'deleted', false], ['notes.txt', 'modified', false]]);
    expect(await text(second!.diff)).toContain(' alpha\n-beta\n+BETA\n+gamma\n');
    expect(end).toMatchObject({ reason: 'end', files: [], manifest: second!.manifest });

    const diff = await cli(['diff', run.id]);
    expect(diff.code).toBe(0);
    const net = diff.out.join('\n');
    expect(net).toContain('+++ b/notes.txt');
    expect(net).toContain('+alpha\n+BETA\n+gamma');
    expect(net).not.toContain('doomed.txt');
    expect(net).not.toContain('blob.bin');
    expect((await cli(['diff', run.id, '--stat'])).out).toEqual([' notes.txt | 3 +++', ' 1 file changed, 3 insertions(+)']);

    const ok = await cli(['replay', run.id, '--verify']);
    expect(ok.code).toBe(0);
    expect(ok.out[0]).toMatch(/^workspace .*: \d+ scans, final hash [0-9a-f]{12}, same on disk$/);

    writeFileSync(join(workspace, 'notes.txt'), 'edited by hand\n');
    const bad = await cli(['replay', run.id, '--verify']);
    expect(bad.code).toBe(3);
    expect(bad.message).toMatch(/the workspace does not verify: .*changed after the session's last scan/);
    expect(bad.out.join('\n')).toContain('DIFFERS on disk');

    const timeline = (await cli(['replay', run.id])).out.join('\n');
    expect(timeline).toContain('WorkspaceChanged  cell 3 files +3 -0');
    expect(timeline).toContain('M notes.txt  +2 -1');
  }, 180_000);

  test('a workspace that is a git repository has HEAD, branch and dirty state logged at start and end', async () => {
    // The kernel's uid owns the workspace directory (services/sandbox), not what the test put in it: the cell adds a file.
    const input = h.input({ root: [py("open('CHANGES.md', 'w').write('more\\n')"), 'edited'] }, 'edit the readme');
    const workspace = createKernelHost(h.config).place(input.sessionId).workspace;
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'README.md'), 'hello\n');
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: workspace }).toString().trim();
    git('init', '-q', '-b', 'trunk');
    git('add', '-A');
    git('commit', '-qm', 'start');
    const head = git('rev-parse', 'HEAD');
    const run = await h.runInput(input);
    expect(run.result).toEqual({ status: 'completed', answer: 'edited' });
    expect(run.of('CellExecuted').map((c) => [c.status, c.outputs])).toEqual([['ok', '5']]);
    const scans = run.of('WorkspaceChanged') as WorkspaceChanged[];
    expect(scans.map((e) => [e.reason, e.git])).toEqual([
      ['start', { head, branch: 'trunk', dirtyPaths: 0 }],
      ['cell', null],
      ['end', { head, branch: 'trunk', dirtyPaths: 1 }],
    ]);
    expect(await text(scans[2]!.netDiff)).toContain('+++ b/CHANGES.md\n@@ -0,0 +1 @@\n+more\n');
    expect(run.types().indexOf('WorkspaceChanged')).toBe(run.types().indexOf('SessionStarted') + 1);
    expect(run.types().at(-2)).toBe('WorkspaceChanged');
  }, 180_000);

  test('a worker SIGKILL as a cell ends (before, during or after its scan) neither loses nor doubles the change', async () => {
    let killed: number | null = null;
    let spawners: number[] = [];
    const run = await runOnStackWorker(h, {
      root: [py("open('a.txt', 'w').write('one\\n')"), py("open('b.txt', 'w').write('two\\n')"), 'done'],
    }, {
      task: 'write two files',
      onEvent: async (_n, e) => {
        if (killed !== null || e.type !== 'CellExecuted') return;
        const worker = (await status(h.config)).find((s) => s.name === 'worker');
        if (!worker?.healthy || !worker.pid) throw new Error('the stack has no healthy worker to kill');
        spawners = spawnersOf(worker.pid);
        process.kill(worker.pid, 'SIGKILL');
        killed = worker.pid;
      },
    });
    expect(killed).not.toBeNull();
    // The killed worker had scanned, so it had a git spawner, which ended with it (gone, or a
    // zombie until its new parent reaps it).
    expect(spawners).toHaveLength(1);
    expect(spawners.filter((p) => (procStat(p)?.state ?? 'Z') !== 'Z')).toEqual([]);
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const scans = run.of('WorkspaceChanged') as WorkspaceChanged[];
    expect(scans.map((e) => [e.reason, e.files.map((f) => `${f.change} ${f.path}`)])).toEqual([
      ['cell', ['added a.txt']], ['cell', ['added b.txt']], ['end', []],
    ]);
    expect(scans[1]!.baseManifest).toEqual(scans[0]!.manifest);
  }, 300_000);
});
