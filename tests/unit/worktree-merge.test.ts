import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkspaceBinding } from '../../activities/workspace/binding';
import { createWorktrees } from '../../activities/workspace/worktree';

const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function fixture() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'recur-wt-')));
  const repo = join(root, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo\nthree\n');
  writeFileSync(join(repo, 'gone.txt'), 'bye\n');
  sh(repo, 'add', '-A');
  sh(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
  const records = new Map<string, WorkspaceBinding>([['r', { dir: repo, group: repo, shared: [] }]]);
  const book = {
    of: (id: string) => records.get(id) ?? records.get('r')!,
    own: (id: string) => records.get(id) ?? null,
    record: (id: string, b: WorkspaceBinding) => void records.set(id, b),
  };
  const trees = createWorktrees(book, (rootId, childId) => join(root, 'home', rootId, childId.replace(/\//g, '_')), (rootId) => join(root, 'home', rootId));
  return { root, repo, trees, records };
}

describe('sub-agent worktrees', () => {
  let f: ReturnType<typeof fixture>;
  beforeEach(() => (f = fixture()));
  afterEach(() => rmSync(f.root, { recursive: true, force: true }));

  it("a child's edits, new and deleted files land in the parent's working tree, and nothing is committed to its branch", async () => {
    writeFileSync(join(f.repo, 'draft.txt'), 'uncommitted\n');
    const made = await f.trees.prepare({ rootId: 'r', parentId: 'r', childId: 'r/c' });
    if (!made.ok) throw new Error(made.reason);
    // The parent's uncommitted file is in the child's worktree.
    expect(readFileSync(join(made.workspace, 'draft.txt'), 'utf8')).toBe('uncommitted\n');
    writeFileSync(join(made.workspace, 'a.txt'), 'one\nTWO\nthree\n');
    writeFileSync(join(made.workspace, 'new.txt'), 'fresh\n');
    rmSync(join(made.workspace, 'gone.txt'));
    const head = sh(f.repo, 'rev-parse', 'HEAD');
    const out = await f.trees.merge('r/c');
    expect(out).toMatchObject({ status: 'merged', files: ['a.txt', 'gone.txt', 'new.txt'] });
    expect(readFileSync(join(f.repo, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\n');
    expect(readFileSync(join(f.repo, 'new.txt'), 'utf8')).toBe('fresh\n');
    expect(existsSync(join(f.repo, 'gone.txt'))).toBe(false);
    expect(sh(f.repo, 'rev-parse', 'HEAD')).toBe(head);
    expect(sh(f.repo, 'branch', '--list')).toBe('* main');
    // Merged once: a second merge has nothing more to bring.
    expect(await f.trees.merge('r/c')).toMatchObject({ status: 'unchanged', files: [] });
  });

  it('a conflict is reported with its files and changes nothing in the parent', async () => {
    const made = await f.trees.prepare({ rootId: 'r', parentId: 'r', childId: 'r/c' });
    if (!made.ok) throw new Error(made.reason);
    writeFileSync(join(made.workspace, 'a.txt'), 'one\nchild\nthree\n');
    writeFileSync(join(made.workspace, 'new.txt'), 'fresh\n');
    writeFileSync(join(f.repo, 'a.txt'), 'one\nparent\nthree\n');
    const out = await f.trees.merge('r/c');
    expect(out).toMatchObject({ status: 'conflict', files: ['a.txt'], result: null });
    expect(readFileSync(join(f.repo, 'a.txt'), 'utf8')).toBe('one\nparent\nthree\n');
    expect(existsSync(join(f.repo, 'new.txt'))).toBe(false);
  });

  it('a workspace that is not a git repository is a clear refusal, and the tree end removes its worktrees', async () => {
    const plain = mkdtempSync(join(f.root, 'plain-'));
    f.records.set('p', { dir: plain, group: plain, shared: [] });
    expect(await f.trees.prepare({ rootId: 'p', parentId: 'p', childId: 'p/c' })).toEqual({ ok: false, reason: expect.stringMatching(/not in a git repository/) });
    const made = await f.trees.prepare({ rootId: 'r', parentId: 'r', childId: 'r/c' });
    if (!made.ok) throw new Error(made.reason);
    expect(sh(f.repo, 'worktree', 'list')).toContain(made.workspace);
    await f.trees.removeTree('r');
    expect(existsSync(made.workspace)).toBe(false);
    expect(sh(f.repo, 'worktree', 'list')).not.toContain(made.workspace);
  });
});
