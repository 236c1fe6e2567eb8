import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionWorkspaces } from '../../services/sandbox';
import { recur } from '../helpers/run-cli';
import { SessionHarness, py, scriptsDir } from '../helpers/session-harness';

const sh = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A git repository owned by whoever runs the tests (root in CI and here), beside a sibling holding a secret. */
function fixtureRepo(): { repo: string; sibling: string } {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'recur-ws-')));
  const repo = join(parent, 'repo');
  const sibling = join(parent, 'sibling');
  mkdirSync(sibling);
  writeFileSync(join(sibling, 'secret.txt'), 'sibling secret');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, 'a.txt'), 'original\n');
  sh(repo, 'add', '-A');
  sh(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
  return { repo, sibling };
}

describe('a session bound to a directory of the user (real stack, real kernel, real git)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('works in DIR: edits and creates files the host sees and root owns afterwards; a worktree child merges, a conflicting one changes nothing', async () => {
    const { repo, sibling } = fixtureRepo();
    const input = h.input({
      root: [
        py(`import os
print("CWD", os.getcwd(), "UID", os.getuid())
print("READ", open("a.txt").read().strip())
open("a.txt", "w").write("edited\\n")
open("new.txt", "w").write("created\\n")`),
        py(`for path in (${JSON.stringify(sibling)} + "/secret.txt", ${JSON.stringify(h.config.home)} + "/run/bridge.secret"):
    try:
        print("ESCAPED", open(path).read())
    except OSError as e:
        print("BLOCKED", type(e).__name__)
import subprocess
print("GIT", subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout.split())
# Links out of the workspace lead nowhere inside, and the next kernel's ACL walk does not follow them.
os.symlink(${JSON.stringify(sibling)}, "out")
os.symlink(${JSON.stringify(sibling)} + "/secret.txt", "secret-link")
for path in ("out/secret.txt", "secret-link"):
    try:
        print("ESCAPED", open(path).read())
    except OSError as e:
        print("BLOCKED", type(e).__name__)`),
        py(`peer = rlm("share", name="peer")
print("PEER", peer.result())
open("peer.txt", "a").write("and the parent\\n")
print("BOTH", open("new.txt").read().split(), open("peer.txt").read().split())`),
        py(`h = rlm("add b", name="wt", workspace="worktree")
print("CHILD", h.result())
print("MERGED", h.merge())`),
        py(`h2 = rlm("clash", name="wt2", workspace="worktree")
h2.result()
open("c.txt", "w").write("parent\\n")
try:
    h2.merge()
except Exception as e:
    print("CONFLICT", type(e).__name__, e)`),
        py('final("done")'),
      ],
      wt: [py(`import os
print(open("a.txt").read())
open("b.txt", "w").write("from the child\\n")
final(os.getcwd())`)],
      wt2: [py('open("c.txt", "w").write("child\\n")\nfinal("clashed")')],
      // A child sharing the workspace: another uid, the same group; each edits what the other made.
      peer: [py(`import os
open("new.txt", "a").write("peer\\n")
open("peer.txt", "w").write("peer made\\n")
final(os.getcwd())`)],
    }, 'work in the repository');
    // What the daemon does for `recur run --cwd`: the binding is recorded before the workflow starts.
    sessionWorkspaces(h.config).record(input.sessionId, { dir: repo, group: repo, shared: [] });
    const run = await h.runInput({ ...input, workspace: repo });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const out = run.of('CellExecuted').map((c) => c.outputs);
    expect(out[0]).toContain(`CWD ${repo} UID`);
    // As root the kernel runs as a uid of its own (docs/sandbox.md), not as the directory's owner.
    if (process.getuid?.() === 0) expect(Number(/UID (\d+)/.exec(out[0])?.[1])).toBeGreaterThanOrEqual(2 ** 30);
    expect(out[0]).toContain('READ original');
    expect(out[1]).not.toContain('ESCAPED');
    expect(out[1].match(/BLOCKED/g)).toHaveLength(4);
    // git works inside the sandbox on a repository owned by someone else than the kernel's uid.
    expect(out[1]).toMatch(/GIT \[.*'a\.txt'.*'new\.txt'/);
    expect(out[2]).toContain(`PEER ${repo}`);
    expect(out[2]).toContain("BOTH ['created', 'peer'] ['peer', 'made', 'and', 'the', 'parent']");
    expect(out[3]).toContain("MERGED {'status': 'merged', 'files': ['b.txt']}");
    expect(out[4]).toMatch(/CONFLICT MergeConflictError rlm.merge: merging wt2 conflicts in c\.txt; nothing was applied/);

    expect(readFileSync(join(repo, 'a.txt'), 'utf8')).toBe('edited\n');
    expect(readFileSync(join(repo, 'new.txt'), 'utf8')).toBe('created\npeer\n');
    expect(readFileSync(join(repo, 'b.txt'), 'utf8')).toBe('from the child\n');
    expect(readFileSync(join(repo, 'c.txt'), 'utf8')).toBe('parent\n');
    // The kernel ran as a uid of its own; what it made is the workspace owner's once it stopped
    // (the children's kernels stop as their workflows end, after the root's).
    for (const name of ['peer', 'wt', 'wt2']) await h.result(`${run.id}/${name}`);
    const owner = statSync(repo).uid;
    for (const f of ['a.txt', 'new.txt', 'peer.txt', 'b.txt', 'c.txt']) expect([f, statSync(join(repo, f)).uid]).toEqual([f, owner]);
    // Nothing outside DIR was opened or handed over through the links the agent left.
    expect(execFileSync('getfacl', ['-cp', sibling, join(sibling, 'secret.txt')], { encoding: 'utf8' })).not.toMatch(/group:\d+:/);
    expect(statSync(join(sibling, 'secret.txt')).uid).toBe(statSync(sibling).uid);
    writeFileSync(join(repo, 'new.txt'), 'the operator edits it\n');
    // Never committed into the user's branch; the worktrees went with the tree.
    expect(sh(repo, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(sh(repo, 'worktree', 'list').split('\n')).toHaveLength(1);

    const merges = run.of('WorkspaceMerged');
    expect(merges.map((m) => [m.childId, m.status, m.files])).toEqual([
      [`${run.id}/wt`, 'merged', ['b.txt']],
      [`${run.id}/wt2`, 'conflict', ['c.txt']],
    ]);
    // The child worked in its own worktree under the home, not in DIR.
    const child = run.of('SessionCompleted', `${run.id}/wt`)[0];
    expect(child.answer.startsWith(join(h.config.home, 'worktrees'))).toBe(true);
  }, 300_000);

  it('a worktree of a directory that is not a git repository is a clear error in the cell', async () => {
    const plain = realpathSync(mkdtempSync(join(tmpdir(), 'recur-plain-')));
    const input = h.input({
      root: [py(`try:
    rlm("x", name="wt", workspace="worktree")
except Exception as e:
    print("REFUSED", e)`), py('final("ok")')],
    }, 'no repository');
    sessionWorkspaces(h.config).record(input.sessionId, { dir: plain, group: plain, shared: [] });
    const run = await h.runInput({ ...input, workspace: plain });
    expect(run.of('CellExecuted')[0].outputs).toContain(`REFUSED rlm.spawn: rlm(workspace="worktree") needs the workspace to be a git repository's top level; ${plain} is not in a git repository`);
  }, 120_000);
});

describe('recur run --cwd (the daemon and its worker)', () => {
  const dir = scriptsDir();
  const script = (name: string, agents: Record<string, string[]>) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify({ agents }));
    return `scripted:${file}`;
  };

  it('binds the tree to DIR: its kernel works there', async () => {
    const { repo } = fixtureRepo();
    const model = script('cwd', { root: [py('import os\nopen("from-kernel.txt", "w").write(os.getcwd())'), py('final("ok")')] });
    const { code } = await recur(['run', 'write a file', '--model', model, '--cwd', repo, '--json']);
    expect(code).toBe(0);
    expect(readFileSync(join(repo, 'from-kernel.txt'), 'utf8')).toBe(repo);
  }, 120_000);

  it('a DIR that does not exist, is a file or holds the home is a clear error naming it', async () => {
    const { repo } = fixtureRepo();
    const model = script('never', { root: [py('final("never")')] });
    for (const [cwd, why] of [[join(repo, 'missing'), 'does not exist'], [join(repo, 'a.txt'), 'is not a directory'], ['/', 'the root directory']]) {
      const r = await recur(['run', 'x', '--model', model, '--cwd', cwd]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(`cwd ${cwd}`);
      expect(r.stderr).toContain(why);
    }
    expect(existsSync(join(repo, 'missing'))).toBe(false);
  }, 60_000);
});
