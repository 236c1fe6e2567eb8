import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../services/cli/cli';
import { sessionWorkspaces } from '../../services/sandbox';
import { SessionHarness, py, type SessionRun } from '../helpers/session-harness';

/*
 * The doors beside the cell (docs/sandbox.md, "What runs beside the cell"), tried from a real
 * session in the overnight configuration: an autonomous run in the user's repository whose gate is
 * `python3 -m unittest`. The agent does what an agent fixing tests does, editing the tests: one
 * imports a module of its own that tries, from the gate, every door an agent's code could reach
 * outside the kernel. Its cells also try to plant git hooks and config, in the workspace and through
 * a worktree's pointer file, and leave a link to a home secret for host-side processes to follow.
 * Each line printed is `BLOCKED <what>` or `ESCAPED <what>`; with RECUR_SANDBOX=off the same run
 * prints ESCAPED lines (the doors are real).
 */
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' }).trim();

/** The user's repository: a passing test, committed. */
function fixtureRepo(): string {
  const repo = join(realpathSync(mkdtempSync(join(tmpdir(), 'recur-doors-'))), 'app');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  writeFileSync(join(repo, 'test_calc.py'), 'import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'add() and its test');
  return repo;
}

describe('the doors beside the cell are shut (overnight configuration: autonomous, a gate, the user repository; real stack)', () => {
  const h = new SessionHarness();
  let repo: string;
  let run: SessionRun;
  let gate: string;
  let cells: string[];
  const home = () => h.config.home;
  /** What a planted hook or fsmonitor command would create, were it run. */
  const pwned = join(realpathSync(mkdtempSync(join(tmpdir(), 'recur-doors-marker-'))), 'pwned');

  beforeAll(async () => {
    await h.start();
    repo = fixtureRepo();
    const ports = h.config.ports;
    const targets = {
      files: ['keys/signing.pem', 'run/kafka-credentials.json', 'run/daemon.token', 'run/bridge.secret'].map((f) => join(home(), f)),
      ports: { kafka: ports.kafka, temporal: ports.temporal, jupyter: ports.jupyter, daemon: ports.daemon },
    };
    // Run by the gate, on import: every secret and service of the home.
    const probe = `import json, socket
T = json.loads(${JSON.stringify(JSON.stringify(targets))})
for f in T["files"]:
    try:
        print("ESCAPED read", f, open(f).read()[:30].replace("\\n", " "))
    except OSError as e:
        print("BLOCKED read", f.rsplit("/", 2)[-2] + "/" + f.rsplit("/", 1)[-1], type(e).__name__)
for name, port in T["ports"].items():
    try:
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
        print("ESCAPED reach", name)
    except OSError as e:
        print("BLOCKED reach", name, type(e).__name__)
try:
    print("ESCAPED link", open("leak.pem").read()[:30])
except OSError as e:
    print("BLOCKED link", type(e).__name__)
`;
    const input = h.input({
      root: [
        // In the cell first (and so in a replay of it), then the gate's import.
        py(`probe = ${JSON.stringify(probe)}
open("probe.py", "w").write(probe)
exec(probe)
for path, text in ((".git/hooks/pre-commit", "#!/bin/sh\\ntouch ${pwned}\\n"), (".git/config", "[core]\\n\\tfsmonitor = touch ${pwned}\\n"),
                   (".git/info/attributes", "* filter=evil\\n")):
    try:
        with open(path, "a") as f:
            f.write(text)
        print("ESCAPED wrote", path)
    except OSError as e:
        print("BLOCKED wrote", path, type(e).__name__)
import os, subprocess
os.symlink(${JSON.stringify(join(home(), 'keys', 'signing.pem'))}, "leak.pem")
src = open("test_calc.py").read()
open("test_calc.py", "w").write("import probe  # noqa: F401\\n" + src)
done = subprocess.run(["git", "commit", "-qam", "by hand"], capture_output=True, text=True)
print("PLAIN GIT", done.returncode, "helper named" if "git.commit(" in done.stderr else done.stderr)`),
        py(`h = rlm("try the worktree's pointer", name="wt", workspace="worktree")
print("CHILD", h.result())
print("MERGED", h.merge())
print("COMMIT", git.commit("Import the probe in the tests"))
print("BRANCH", git.branch("recur/fix"))`),
        'The tests pass now.',
      ],
      wt: [py(`import os, re
pointer = open(".git").read()
gitdir = re.match(r"gitdir: *(.+)", pointer).group(1).strip()
common = os.path.realpath(os.path.join(gitdir, open(os.path.join(gitdir, "commondir")).read().strip()))
for path in (".git", gitdir + "/config.worktree", common + "/hooks/post-checkout", common + "/config", common + "/info/attributes"):
    try:
        with open(path, "a") as f:
            f.write("\\n[core]\\n\\tfsmonitor = touch ${pwned}\\n")
        print("ESCAPED wrote", path)
    except OSError as e:
        print("BLOCKED wrote", os.path.basename(path), type(e).__name__)
open("child.txt", "w").write("from the child\\n")
final("tried")`)],
    }, 'make the tests pass');
    sessionWorkspaces(h.config).record(input.sessionId, { dir: repo, group: repo, shared: [] });
    run = await h.runInput({ ...input, autonomous: { gates: ['python3 -m unittest -q'], gateTimeoutSeconds: 60, gateCwd: repo } });
    gate = run.of('GateChecked').map((g) => g.output).join('\n');
    cells = [...run.sessions.keys()].flatMap((id) => run.of('CellExecuted', id).map((c) => c.outputs));
  }, 300_000);
  afterAll(() => h.stop());

  const lines = () => `${gate}\n${cells.join('\n')}`;

  test('the session completes and the gate passed, run in the sandbox', () => {
    expect(run.result).toEqual({ status: 'completed', answer: 'The tests pass now.' });
    expect(run.of('GateChecked').map((g) => [g.passed, g.exitCode])).toEqual([[true, 0]]);
    expect(lines()).not.toMatch(/ESCAPED/);
  });

  test.each(['signing/signing.pem', 'run/kafka-credentials.json', 'run/daemon.token', 'run/bridge.secret'].map((f) => f.replace('signing/', 'keys/')))(
    'the gate cannot read %s', (file) => expect(gate).toMatch(new RegExp(`BLOCKED read ${file.replace('.', '\\.')} FileNotFoundError`)));

  test.each(['kafka', 'temporal', 'jupyter', 'daemon'])('the gate cannot reach %s', (name) => {
    expect(gate).toMatch(new RegExp(`BLOCKED reach ${name} ConnectionRefusedError`));
  });

  test('a link to a home secret leads nowhere from the gate, and no logged scan, diff or blob holds the secret', async () => {
    expect(gate).toContain('BLOCKED link FileNotFoundError');
    const key = readFileSync(join(home(), 'keys', 'signing.pem'), 'utf8').split('\n')[1]!;
    const scans = run.of('WorkspaceChanged');
    expect(scans.flatMap((s) => s.files).find((f) => f.path === 'leak.pem')).toMatchObject({ change: 'added', kind: 'file' });
    const out: string[] = [];
    expect(await runCli(['diff', run.id], { out: (l) => out.push(l), err: () => undefined })).toBe(0);
    expect(out.join('\n')).toContain(`+${join(home(), 'keys', 'signing.pem')}`);
    expect(out.join('\n')).not.toContain(key);
  });

  test.each(['.git/hooks/pre-commit', '.git/config', '.git/info/attributes'])('a cell cannot write %s in the workspace', (path) => {
    expect(cells.join('\n')).toContain(`BLOCKED wrote ${path} OSError`);
  });

  test.each(['.git', 'config.worktree', 'post-checkout', 'config', 'attributes'])("a worktree child cannot write %s through its pointer file", (name) => {
    expect(cells.join('\n')).toContain(`BLOCKED wrote ${name} OSError`);
  });

  test('a plain git commit in a cell fails naming the helper; git.commit and git.branch are host writes, logged', () => {
    expect(cells.join('\n')).toContain('PLAIN GIT 128 helper named');
    const ops = run.of('GitOperation');
    expect(ops.map((o) => [o.op, o.changed, o.branch])).toEqual([['commit', true, 'main'], ['branch', true, 'recur/fix']]);
    expect(ops[0].files).toEqual(expect.arrayContaining(['probe.py', 'test_calc.py', 'leak.pem', 'child.txt']));
    expect(ops[0].message).toMatch(new RegExp(`^Import the probe in the tests\\n\\nRecur-Session: ${run.id}`));
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(ops[0].commit);
    expect(git(repo, 'symbolic-ref', '--short', 'HEAD')).toBe('recur/fix');
    expect(git(repo, 'log', '-1', '--format=%s')).toBe('Import the probe in the tests');
  });

  test("nothing was planted in the repository's git metadata; Recur's own writes there are not reported as others'", () => {
    expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).not.toContain('fsmonitor');
    expect(existsSync(join(repo, '.git', 'info', 'attributes'))).toBe(false);
    // What the user does the morning after, with plain git and their own hooks: nothing of the agent's runs.
    git(repo, 'status', '--porcelain');
    git(repo, 'commit', '--allow-empty', '-qm', 'the morning after');
    expect(existsSync(pwned)).toBe(false);
    expect(run.of('WorkspaceChanged').flatMap((s) => s.files).filter((f) => f.kind === 'git-meta')).toEqual([]);
  });

  test('the audit of the log passes', async () => {
    const out: string[] = [];
    expect(await runCli(['audit', 'verify', run.id, '--json'], { out: (l) => out.push(l), err: () => undefined })).toBe(0);
    expect(JSON.parse(out.join('\n'))).toMatchObject({ ok: true });
  });

  test("a bundle of the run, replayed with --verify by someone else, runs its cells in the sandbox: the same doors stay shut", async () => {
    const bundle = join(mkdtempSync(join(tmpdir(), 'recur-doors-bundle-')), 'tree.tar.gz');
    expect(await runCli(['export', run.id, '--out', bundle], { out: () => undefined, err: () => undefined })).toBe(0);
    const out: string[] = [];
    // Exit 3: the first cell's replay differs from the log, as it must in a fresh workspace.
    await expect(runCli(['replay', '--bundle', bundle, '--verify', '--json'], { out: (l) => out.push(l), err: () => undefined })).rejects.toThrow(/do not match the log/);
    // A cell replayed as it was logged is reported without its output; the first cell's differs (its workspace is a fresh one).
    const replayed = out.map((l) => JSON.parse(l) as { kind?: string; verdict?: string; replay?: { output?: string } | null }).filter((r) => r.kind === 'cell');
    expect(replayed[0]).toMatchObject({ verdict: 'differs' });
    const outputs = replayed.map((r) => r.replay?.output ?? '').join('\n');
    for (const what of ['read keys/signing.pem', 'read run/bridge.secret', 'reach kafka', 'reach daemon', 'wrote .git/hooks/pre-commit']) expect(outputs).toContain(`BLOCKED ${what}`);
    expect(outputs).not.toMatch(/ESCAPED/);
    expect(existsSync(pwned)).toBe(false);
  });
});
