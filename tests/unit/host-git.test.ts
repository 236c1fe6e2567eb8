import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore } from '../../activities/blob-store';
import type { KernelPlace } from '../../activities/kernel/types';
import type { WorkspaceBinding } from '../../activities/workspace/binding';
import { createGitWrites } from '../../activities/workspace/git-write';
import { createWorkspaceActivities } from '../../activities/workspace/scan-workspace';
import { createWorkspaceRecord } from '../../activities/workspace/workspace-record';
import { createWorktrees } from '../../activities/workspace/worktree';

/*
 * What Recur's own git runs on the host never runs of the workspace's: a filter or merge driver its
 * attributes name, a hook, an fsmonitor command. Each attack is also run through plain git, where
 * it does run, so each test can fail.
 */
describe("host git runs nothing the workspace names", () => {
  let tmp: string;
  let repo: string;
  let marker: string;
  const git = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir, encoding: 'utf8', env: process.env }).trim();
  const ran = () => existsSync(marker);
  /** A script that leaves the marker behind and passes its input through, as a filter would. */
  const evil = () => {
    const script = join(tmp, 'evil.sh');
    writeFileSync(script, `#!/bin/sh\ntouch ${marker}\ncat\n`);
    chmodSync(script, 0o755);
    return script;
  };

  beforeEach(() => {
    tmp = realpathSync(mkdtempSync(join(tmpdir(), 'recur-hostgit-')));
    marker = join(tmp, 'RAN');
    repo = join(tmp, 'repo');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'one\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'one');
  });
  afterEach(() => {
    delete process.env.GIT_CONFIG_GLOBAL;
    rmSync(tmp, { recursive: true, force: true });
  });

  test("the scan takes no filter the workspace's attributes name from the user's global config", async () => {
    const global = join(tmp, 'gitconfig');
    writeFileSync(global, `[filter "evil"]\n\tclean = ${evil()}\n\tsmudge = ${evil()}\n\trequired = true\n`);
    process.env.GIT_CONFIG_GLOBAL = global;
    const ws = join(tmp, 'ws');
    mkdirSync(ws);
    const acts = createWorkspaceActivities({
      blobs: createLocalBlobStore(join(tmp, 'blobs')), root: join(tmp, 'state'), maxFileBytes: 1 << 20,
      places: { place: (): KernelPlace => ({ name: 'x', spool: '', restore: '', skills: '', workspace: ws }) },
    });
    writeFileSync(join(ws, '.gitattributes'), '* filter=evil\n');
    writeFileSync(join(ws, 'b.txt'), 'two\n');
    await acts.scanWorkspace({ sessionId: 's', reason: 'start', requestId: null, key: 's/0', startManifest: null });
    writeFileSync(join(ws, 'b.txt'), 'three\n');
    const { event } = await acts.scanWorkspace({ sessionId: 's', reason: 'cell', requestId: 's/1', key: 's/1', startManifest: null });
    expect(event?.files.map((f) => f.path)).toEqual(['b.txt']);
    expect(ran()).toBe(false);
    // The same attributes with plain git: the driver runs.
    git(ws, 'init', '-q');
    git(ws, 'add', '-A');
    expect(ran()).toBe(true);
  });

  test('a worktree and its merge run no filter or merge driver, and a path with a custom merge driver conflicts', async () => {
    const lines = (first: string, last: string) => `${first}\n2\n3\n4\n5\n6\n${last}\n`;
    writeFileSync(join(repo, 'a.txt'), lines('1', '7'));
    git(repo, 'commit', '-qam', 'seven lines');
    writeFileSync(join(repo, '.git', 'info', 'attributes'), '* filter=evil merge=evil\n');
    git(repo, 'config', 'filter.evil.clean', evil());
    git(repo, 'config', 'merge.evil.driver', `${evil()} %O %A %B`);
    const bindings = new Map<string, WorkspaceBinding>([['root', { dir: repo, group: repo, shared: [] }]]);
    const book = {
      of: (id: string) => bindings.get(id) ?? bindings.get('root')!,
      own: (id: string) => bindings.get(id) ?? null,
      record: (id: string, b: WorkspaceBinding) => void bindings.set(id, b),
    };
    const trees = createWorktrees(book, (_root, child) => join(tmp, 'trees', child), () => join(tmp, 'trees'));
    const made = await trees.prepare({ rootId: 'root', parentId: 'root', childId: 'c' });
    expect(made).toMatchObject({ ok: true });
    writeFileSync(join(tmp, 'trees', 'c', 'b.txt'), 'from the child\n');
    // Edits far apart, which git's own merge takes; the driver set aside is `false`, so the path conflicts.
    writeFileSync(join(tmp, 'trees', 'c', 'a.txt'), lines('child', '7'));
    writeFileSync(join(repo, 'a.txt'), lines('1', 'parent'));
    const merged = await trees.merge('c');
    expect(merged).toMatchObject({ status: 'conflict', files: ['a.txt'] });
    expect(ran()).toBe(false);
    git(repo, 'add', '-A');
    expect(ran()).toBe(true);
  });

  test('git.commit and git.branch run no hook, fsmonitor command or filter, and log what they did', async () => {
    const hook = join(repo, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(hook, 0o755);
    writeFileSync(join(repo, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\ntouch ${marker}\n`);
    chmodSync(join(repo, '.git', 'hooks', 'post-checkout'), 0o755);
    git(repo, 'config', 'core.fsmonitor', evil());
    git(repo, 'config', 'filter.evil.clean', evil());
    writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil\n');
    writeFileSync(join(repo, 'b.txt'), 'two\n');
    const writes = createGitWrites();
    const c = await writes.commit({ workspace: repo, sessionId: 'r1', message: 'add b', paths: null });
    expect(c).toMatchObject({ op: 'commit', changed: true, branch: 'main', files: ['.gitattributes', 'b.txt'] });
    expect(c.message).toBe('add b\n\nRecur-Session: r1');
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(c.commit);
    expect(await writes.commit({ workspace: repo, sessionId: 'r1', message: 'again', paths: null })).toMatchObject({ changed: false, commit: c.commit });
    writeFileSync(join(repo, 'c.txt'), 'three\n');
    writeFileSync(join(repo, 'd.txt'), 'four\n');
    const some = await writes.commit({ workspace: repo, sessionId: 'r1', message: 'only c', paths: ['c.txt'] });
    expect(some).toMatchObject({ changed: true, files: ['c.txt'] });
    expect(git(repo, 'ls-tree', '--name-only', 'HEAD').split('\n')).toEqual(['.gitattributes', 'a.txt', 'b.txt', 'c.txt']);
    const b = await writes.branch({ workspace: repo, name: 'recur/fix', checkout: true });
    expect(b).toMatchObject({ op: 'branch', changed: true, branch: 'recur/fix', commit: some.commit });
    await expect(writes.branch({ workspace: repo, name: 'bad..name', checkout: true })).rejects.toThrow(/not a valid branch name/);
    expect(ran()).toBe(false);
    git(repo, 'commit', '--allow-empty', '-qm', 'by hand');
    expect(ran()).toBe(true);
  });

  test('only a repository top can take a git write, with a clear refusal otherwise', async () => {
    mkdirSync(join(repo, 'sub'));
    const writes = createGitWrites();
    await expect(writes.commit({ workspace: join(repo, 'sub'), sessionId: 'r1', message: 'm', paths: null })).rejects.toThrow(/inside .*not the top of a repository/);
    await expect(writes.branch({ workspace: tmp, name: 'x', checkout: true })).rejects.toThrow(/not in a git repository/);
  });

  test("a hook planted in .git is a git-meta change in the next scan; Recur's own commit in between is not", async () => {
    const record = createWorkspaceRecord(join(tmp, 'state'));
    const acts = createWorkspaceActivities({
      blobs: createLocalBlobStore(join(tmp, 'blobs')), root: join(tmp, 'state'), maxFileBytes: 1 << 20, record,
      places: { place: (): KernelPlace => ({ name: 'x', spool: '', restore: '', skills: '', workspace: repo }) },
    });
    await acts.scanWorkspace({ sessionId: 's', reason: 'start', requestId: null, key: 's/0', startManifest: null });
    writeFileSync(join(repo, 'b.txt'), 'two\n');
    await record.gitWrite(repo, () => createGitWrites().commit({ workspace: repo, sessionId: 's', message: 'b', paths: null }));
    writeFileSync(join(repo, '.git', 'hooks', 'pre-push'), '#!/bin/sh\n');
    const { event } = await acts.scanWorkspace({ sessionId: 's', reason: 'cell', requestId: 's/1', key: 's/1', startManifest: null });
    expect(event?.files.map((f) => [f.path, f.kind, f.change])).toEqual([['.git/hooks/pre-push', 'git-meta', 'added'], ['b.txt', 'file', 'added']]);
    expect((await acts.scanWorkspace({ sessionId: 's', reason: 'cell', requestId: 's/2', key: 's/2', startManifest: null })).event).toBeNull();
  });
});
