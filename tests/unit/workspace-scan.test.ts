import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore } from '../../activities/blob-store';
import type { KernelPlace } from '../../activities/kernel/types';
import { decodeManifest } from '../../activities/workspace/manifest';
import { createWorkspaceActivities, type ScanWorkspaceInput } from '../../activities/workspace/scan-workspace';
import { shadowDir } from '../../activities/workspace/shadow-repo';

/** The scan activity over a real directory and real git: what it reports for each kind of change. */
describe('workspace scan', () => {
  let tmp: string;
  let ws: string;
  let seq: number;
  let acts: ReturnType<typeof createWorkspaceActivities>;
  const blobs = () => createLocalBlobStore(join(tmp, 'blobs'));
  const place = (workspace: string) => ({ place: (): KernelPlace => ({ name: 'x', spool: '', restore: '', skills: '', workspace }) });
  const make = (workspace: string, maxFileBytes = 1024) =>
    createWorkspaceActivities({ blobs: blobs(), places: place(workspace), root: join(tmp, 'state'), maxFileBytes });
  const scan = (reason: ScanWorkspaceInput['reason'] = 'cell', a = acts, sessionId = 's', key?: string) =>
    a.scanWorkspace({ sessionId, reason, requestId: reason === 'cell' ? `s/${seq}` : null, key: key ?? `${sessionId}/${reason}/${seq++}`, startManifest: null });
  const put = (rel: string, text: string | Buffer) => {
    mkdirSync(join(ws, rel, '..'), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  const text = async (ref: { sha256: string } | null) => (ref ? (await blobs().get(ref.sha256)).toString('utf8') : '');
  const gitIn = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir }).toString();

  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'recur-ws-'));
    ws = join(tmp, 'ws');
    mkdirSync(ws);
    seq = 0;
    acts = make(ws);
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  test('the first scan of a plain directory records a baseline, unlogged; then add, modify, delete are reported with a unified diff; nothing changed: no event', async () => {
    put('keep.txt', 'one\ntwo\n');
    put('gone.txt', 'bye\n');
    const start = await scan('start');
    expect(start.event).toBeNull();
    put('keep.txt', 'one\nTWO\n');
    put('src/new.py', 'print(1)\n');
    unlinkSync(join(ws, 'gone.txt'));
    const cell = (await scan()).event!;
    expect(cell).toMatchObject({ reason: 'cell', scan: 1, baseManifest: start.manifest, git: null, ignored: null });
    expect(cell.files.map((f) => [f.path, f.change, f.linesAdded, f.linesDeleted])).toEqual([
      ['gone.txt', 'deleted', 0, 1], ['keep.txt', 'modified', 1, 1], ['src/new.py', 'added', 1, 0],
    ]);
    const diff = await text(cell.diff);
    expect(diff).toContain('--- a/keep.txt\n+++ b/keep.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n');
    expect(diff).toContain('+++ b/src/new.py');
    expect(diff).toContain('+++ /dev/null');
    expect((await scan()).event).toBeNull();
  });

  test('an unchanged index reuses its tree, but one another process wrote is read anew', async () => {
    put('a.txt', 'one\n');
    await scan('start');
    expect((await scan()).event).toBeNull();
    // Another worker's scan (or a git run by hand) adds b.txt to the shadow index: nothing is left
    // for this scan to update, so only the index's identity says its tree has changed.
    put('b.txt', 'two\n');
    const dir = shadowDir(join(tmp, 'state'), ws);
    execFileSync('git', ['update-index', '--add', 'b.txt'], { cwd: ws, env: { ...process.env, GIT_DIR: join(dir, 'git'), GIT_WORK_TREE: ws, GIT_INDEX_FILE: join(dir, 'index') } });
    const cell = (await scan()).event!;
    expect(cell.files.map((f) => [f.path, f.change])).toEqual([['b.txt', 'added']]);
  });

  test('a binary file is reported by hashes, not in the diff; a rename is a delete plus an add', async () => {
    put('a.txt', 'hello\n');
    await scan('start');
    put('pic.bin', Buffer.from([0, 1, 2, 0, 255]));
    renameSync(join(ws, 'a.txt'), join(ws, 'b.txt'));
    const e = (await scan()).event!;
    const bin = e.files.find((f) => f.path === 'pic.bin')!;
    expect(bin).toMatchObject({ change: 'added', binary: true, size: 5 });
    expect(bin.newHash).toMatch(/^[0-9a-f]{40}$/);
    expect(e.files.filter((f) => f.path !== 'pic.bin').map((f) => [f.path, f.change])).toEqual([['a.txt', 'deleted'], ['b.txt', 'added']]);
    expect(await text(e.diff)).toContain('Binary files /dev/null and b/pic.bin differ');
  });

  test('ignored paths (nested .gitignore) are not reported, only counted at start and end; .git/ only as git-meta; files over the cap by size only', async () => {
    put('.gitignore', 'build/\n');
    put('sub/.gitignore', '*.log\n');
    await scan('start');
    put('build/out.o', 'x');
    put('sub/debug.log', 'y'.repeat(10));
    put('.git/junk', 'z');
    put('big.dat', 'b'.repeat(5000));
    const e = (await scan()).event!;
    expect(e.files.map((f) => [f.path, f.kind, f.change, f.overCap, f.size, f.newHash])).toEqual([
      ['.git/junk', 'git-meta', 'added', false, 1, createHash('sha1').update('blob 1\0z').digest('hex')],
      ['big.dat', 'file', 'added', true, 5000, null],
    ]);
    expect(e).toMatchObject({ diff: null, overCapFiles: 1, overCapBytes: 5000, ignored: null });
    expect(decodeManifest(await blobs().get(e.manifest.sha256)).overCap).toEqual([['big.dat', 5000]]);
    put('sub/debug.log', 'y'.repeat(20));
    expect((await scan()).event).toBeNull();
    // Crossing the cap either way is one modification of the file.
    put('grows.txt', 'g\n');
    await scan();
    put('grows.txt', 'g'.repeat(2000));
    expect((await scan()).event!.files.map((f) => [f.path, f.change, f.overCap, f.oldHash !== null, f.newHash !== null]))
      .toEqual([['grows.txt', 'modified', true, true, false]]);
    put('big.dat', 'small again\n');
    expect((await scan()).event!.files.map((f) => [f.path, f.change, f.overCap, f.oldHash !== null, f.newHash !== null, f.linesAdded]))
      .toEqual([['big.dat', 'modified', false, false, true, 1]]);
    expect((await scan('end')).event).toBeNull();
    put('last.txt', 'l\n');
    const end = (await scan('end')).event!;
    expect(end.files.map((f) => f.path)).toEqual(['last.txt']);
    expect(end).toMatchObject({ ignored: { entries: 2, bytes: 20 }, overCapFiles: 1, overCapBytes: 2000 });
  });

  test('a change to a sensitive path is marked with its rule and listed after git-meta entries, before ordinary files', async () => {
    put('a.txt', 'a\n');
    await scan('start');
    put('a.txt', 'A\n');
    put('.github/workflows/ci.yml', 'on: push\n');
    put('.git/hooks/pre-commit', '#!/bin/sh\n');
    put('sub/.envrc', 'export X=1\n');
    const e = (await scan()).event!;
    expect(e.files.map((f) => [f.path, f.kind, f.sensitive])).toEqual([
      ['.git/hooks/pre-commit', 'git-meta', null], ['.github/workflows/ci.yml', 'file', '.github/workflows/**'], ['sub/.envrc', 'file', '.envrc'], ['a.txt', 'file', null],
    ]);
    // Rules from the config are added to the defaults by the config module; here they stand alone.
    const own = createWorkspaceActivities({ blobs: blobs(), places: place(ws), root: join(tmp, 'state'), maxFileBytes: 1024, sensitivePaths: ['*.txt'] });
    put('a.txt', 'again\n');
    put('.github/workflows/ci.yml', 'on: pull_request\n');
    expect((await scan('cell', own)).event!.files.map((f) => [f.path, f.sensitive])).toEqual([['a.txt', '*.txt'], ['.github/workflows/ci.yml', null]]);
  });

  test("package.json is marked when its scripts changed (added, edited, removed), compared in the shadow's blobs, and not when only its version did", async () => {
    const pkg = (version: string, scripts?: Record<string, string>) => `${JSON.stringify({ name: 'p', version, ...(scripts && { scripts }) }, null, 2)}\n`;
    put('package.json', pkg('1.0.0'));
    await scan('start');
    const marked = async () => (await scan()).event!.files.map((f) => [f.path, f.sensitive]);
    put('package.json', pkg('1.0.1'));
    expect(await marked()).toEqual([['package.json', null]]);
    put('package.json', pkg('1.0.1', { test: 'jest' }));
    expect(await marked()).toEqual([['package.json', 'package.json#scripts']]);
    put('package.json', pkg('1.0.2', { test: 'jest' }));
    put('web/package.json', pkg('0.1.0', { postinstall: 'node setup.js' }));
    expect(await marked()).toEqual([['web/package.json', 'package.json#scripts'], ['package.json', null]]);
    put('package.json', pkg('1.0.2', { test: 'jest --ci' }));
    expect(await marked()).toEqual([['package.json', 'package.json#scripts']]);
    unlinkSync(join(ws, 'web/package.json'));
    expect(await marked()).toEqual([['web/package.json', 'package.json#scripts']]);
    put('package.json', '{ "scripts": ');
    expect(await marked()).toEqual([['package.json', 'package.json#scripts']]);
  });

  test('a retried scan (same key) returns its first result, even if the disk changed since; the change after is the next scan\'s', async () => {
    await scan('start');
    put('a.txt', 'a\n');
    const first = await scan('cell', acts, 's', 'k1');
    put('b.txt', 'b\n');
    expect(await scan('cell', make(ws), 's', 'k1')).toEqual(first);
    expect((await scan()).event!.files.map((f) => f.path)).toEqual(['b.txt']);
  });

  test("sessions sharing a workspace: the child's change is logged once, by the child; the parent's next scan finds nothing", async () => {
    await scan('start', acts, 'parent');
    put('child.txt', 'from the child\n');
    expect((await scan('cell', acts, 'parent/c')).event!.files.map((f) => f.path)).toEqual(['child.txt']);
    expect((await scan('cell', acts, 'parent')).event).toBeNull();
  });

  test('a git checkout: HEAD, branch and dirty paths at start; untracked and committed-then-edited files are seen; the end has the net diff', async () => {
    put('README.md', 'hi\n');
    put('.gitignore', 'node_modules/\n');
    gitIn(ws, 'init', '-q', '-b', 'main');
    gitIn(ws, 'add', '-A');
    gitIn(ws, 'commit', '-qm', 'init');
    const head = gitIn(ws, 'rev-parse', 'HEAD').trim();
    put('node_modules/x/index.js', 'ignored\n');
    const start = (await scan('start')).event!;
    expect(start.git).toEqual({ head, branch: 'main', dirtyPaths: 0 });
    put('README.md', 'hi there\n');
    put('notes.txt', 'new\n');
    await scan();
    put('notes.txt', 'newer\n');
    await scan();
    const end = (await acts.scanWorkspace({ sessionId: 's', reason: 'end', requestId: null, key: 'end', startManifest: start.manifest })).event!;
    expect(end.git).toEqual({ head, branch: 'main', dirtyPaths: 2 });
    const net = await text(end.netDiff);
    expect(net).toContain('-hi\n+hi there\n');
    expect(net).toContain('+newer\n');
    expect(net).not.toContain('+new\n');
    expect(net).not.toContain('node_modules');
  });

  test('the user\'s index, copied as the shadow\'s warm start, is the owner\'s alone in the home however open the user\'s is', async () => {
    put('README.md', 'hi\n');
    gitIn(ws, 'init', '-q', '-b', 'main');
    gitIn(ws, 'add', '-A');
    gitIn(ws, 'commit', '-qm', 'init');
    chmodSync(join(ws, '.git', 'index'), 0o666);
    await scan('start');
    expect(statSync(join(shadowDir(join(tmp, 'state'), ws), 'index')).mode & 0o777).toBe(0o600);
  });

  test("commands the workspace's .git/config names (fsmonitor, a clean filter) never run on the host; a subdirectory workspace is measured against HEAD's subtree", async () => {
    const marker = join(tmp, 'ran');
    const hook = join(tmp, 'hook.sh');
    writeFileSync(hook, `#!/bin/sh\ntouch ${marker}\ncat\n`, { mode: 0o755 });
    put('sub/a.txt', 'a\n');
    put('top.txt', 't\n');
    put('.gitattributes', '* filter=evil\n');
    gitIn(ws, 'init', '-q', '-b', 'main');
    gitIn(ws, 'add', '-A');
    gitIn(ws, 'commit', '-qm', 'init');
    gitIn(ws, 'config', 'core.fsmonitor', hook);
    gitIn(ws, 'config', 'filter.evil.clean', hook);
    const sub = make(join(ws, 'sub'));
    const start = (await scan('start', sub)).event!;
    expect(start.git).toMatchObject({ branch: 'main', dirtyPaths: 0 });
    put('sub/a.txt', 'changed\n');
    put('sub/b.txt', 'new\n');
    put('top.txt', 'outside the workspace\n');
    expect((await scan('cell', sub)).event!.files.map((f) => f.path)).toEqual(['a.txt', 'b.txt']);
    expect((await scan('end', sub)).event!.git).toMatchObject({ dirtyPaths: 2 });
    expect((await scan('end', acts)).event!.git).toMatchObject({ dirtyPaths: 3 });
    expect(existsSync(marker)).toBe(false);
  });
  /** `fn` with no git on the PATH: a scan that needs git fails to start it. */
  const withoutGit = async <T>(fn: () => Promise<T>): Promise<T> => {
    const path = process.env.PATH;
    process.env.PATH = join(tmp, 'no-bin');
    try {
      return await fn();
    } finally {
      process.env.PATH = path;
    }
  };

  test('a workspace unchanged since its latest scan is answered by a walk, without git; every kind of change after it is left to git, which reports it', async () => {
    put('a.txt', 'one\n');
    put('dir/b.txt', 'two\n');
    await scan('start');
    expect(await withoutGit(() => scan())).toMatchObject({ event: null });
    const changes: [string, () => void, string[]][] = [
      // Right after the scan, at the same size: within the filesystem's timestamp tick the stat may not move, the bytes do.
      ['same-size rewrite', () => put('a.txt', 'ONE\n'), ['a.txt']],
      ['mode', () => chmodSync(join(ws, 'a.txt'), 0o755), ['a.txt']],
      ['new file in a subdirectory', () => put('dir/deep/c.txt', 'c\n'), ['dir/deep/c.txt']],
      ['delete', () => unlinkSync(join(ws, 'dir/b.txt')), ['dir/b.txt']],
      ['rename', () => renameSync(join(ws, 'a.txt'), join(ws, 'z.txt')), ['a.txt', 'z.txt']],
      ['symlink', () => symlinkSync('z.txt', join(ws, 'link')), ['link']],
    ];
    for (const [what, change, paths] of changes) {
      change();
      await expect(withoutGit(() => scan())).rejects.toThrow(/git could not start/);
      expect([what, (await scan()).event?.files.map((f) => f.path)]).toEqual([what, paths]);
      expect([what, await withoutGit(() => scan())]).toEqual([what, expect.objectContaining({ event: null })]);
    }
  });

  test('a scan by another session or process since, or a workspace over the walk\'s entry limit, is left to git', async () => {
    put('a.txt', 'a\n');
    await scan('start', acts, 'parent');
    expect(await withoutGit(() => scan('cell', acts, 'parent'))).toMatchObject({ event: null });
    put('b.txt', 'b\n');
    await scan('cell', make(ws), 'other');
    await expect(withoutGit(() => scan('cell', acts, 'parent'))).rejects.toThrow(/git could not start/);
    expect((await scan('cell', acts, 'parent')).event).toBeNull();
    for (let i = 0; i < 2_001; i++) put(`many/f${i}`, '');
    await scan();
    await scan();
    await expect(withoutGit(() => scan())).rejects.toThrow(/git could not start/);
  });

  test("the scan after a cell, in the cell's activity: a small workspace's as any scan; one over the walk's limit is left to the workflow, with nothing recorded, unless the same key was recorded", async () => {
    const after = (key: string) => acts.scanAfterCell({ sessionId: 's', reason: 'cell', requestId: key, key, startManifest: null });
    put('a.txt', 'a\n');
    await scan('start');
    put('a.txt', 'A\n');
    expect((await after('k1'))!.event!.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(await withoutGit(() => after('k2'))).toMatchObject({ event: null });
    put('b.txt', 'b\n');
    expect((await after('k3'))!.event!.files.map((f) => f.path)).toEqual(['b.txt']);
    for (let i = 0; i < 2_001; i++) put(`many/f${i}`, '');
    // Its recorded answer stands, whatever the workspace has become.
    expect((await withoutGit(() => after('k3')))!.event!.files.map((f) => f.path)).toEqual(['b.txt']);
    expect(await withoutGit(() => after('k4'))).toBeNull();
    // The workflow's scan, which follows, finds every change since the last recorded scan.
    expect((await scan('cell', acts, 's', 'k4')).event!.filesTotal).toBe(2_001);
  });

  test('a workspace that does not exist yet scans as empty, and its shadow repository still gets its settings', async () => {
    // Nor does its parent (a home's workspaces/ before its first session): git refuses such a work tree.
    const later = join(tmp, 'workspaces', 'later');
    const a = make(later);
    expect((await scan('start', a)).event).toBeNull();
    const gitDir = join(shadowDir(join(tmp, 'state'), later), 'git');
    expect(gitIn(tmp, '--git-dir', gitDir, 'config', '--get', 'gc.auto').trim()).toBe('0');
    mkdirSync(later, { recursive: true });
    writeFileSync(join(later, 'first.txt'), 'hello\n');
    expect((await scan('cell', a)).event!.files.map((f) => [f.path, f.change])).toEqual([['first.txt', 'added']]);
  });
});
