import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecurEventInput } from '../../schemas';
import { parseConfig } from '../../config';
import { ciOptions } from '../../services/cli/ci/ci-flags';
import { ciVerdict } from '../../services/cli/ci/exit-codes';
import { makeReviewBranch, type BranchRequest } from '../../services/cli/ci/review-branch';
import { ExitError } from '../../errors';
import { chain, ev } from '../helpers/replay-tree-fixture';

/* `recur run --ci --branch`: the root's net change committed for a reviewer, against real git repositories and a local bare remote. */

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'recur-branch-'));
  const repo = join(dir, 'app');
  const remote = join(dir, 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', remote]);
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(join(repo, '.gitignore'), 'scratch/\n');
  git(repo, 'add', '-A');
  git(repo, '-c', 'user.name=dev', '-c', 'user.email=dev@example.com', 'commit', '-q', '-m', 'start');
  git(repo, 'remote', 'add', 'origin', remote);
  return { repo, remote };
}

const endScan = (workspace: string): RecurEventInput => ({
  type: 'WorkspaceChanged', workspace, reason: 'end', requestId: null, scan: 2, baseManifest: null, manifest: { sha256: 'b'.repeat(64), size: 1 },
  diff: null, files: [], filesTotal: 0, overCapFiles: 0, overCapBytes: 0, ignored: null, git: null, netDiff: null, durationMs: 1,
});

function run(repo: string, end: RecurEventInput = ev.completed('Fixed add: it subtracted.\n\nThe test passes now.')) {
  const log = chain('r', [[100, ev.started('root', 0)], [200, endScan(repo)], [300, end]]);
  return { events: log.records, verdict: ciVerdict(log.records[2], log.records), last: log.records[2] };
}
const request = (over: Partial<BranchRequest> = {}): BranchRequest => ({ name: 'recur/fix-add', push: null, always: false, author: null, ...over });

test('the workspace as the session left it goes on a new branch over HEAD, with the answer as the message and trailers naming the session and the chain; the checkout is untouched', async () => {
  const { repo, remote } = fixture();
  git(repo, 'config', 'user.name', 'CI Bot');
  git(repo, 'config', 'user.email', 'ci@example.com');
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  writeFileSync(join(repo, 'notes.md'), 'new file\n');
  const { events, verdict, last } = run(repo);
  const said = await makeReviewBranch({ rootId: 'r', events, verdict, branch: request({ push: 'origin' }) });
  const sha = git(repo, 'rev-parse', 'refs/heads/recur/fix-add');
  expect(said).toBe(`branch recur/fix-add made: ${sha}, pushed to origin`);
  expect(git(remote, 'rev-parse', 'refs/heads/recur/fix-add')).toBe(sha);
  expect(git(repo, 'show', '-s', '--format=%an <%ae>|%cn <%ce>', sha)).toBe('CI Bot <ci@example.com>|CI Bot <ci@example.com>');
  expect(git(repo, 'show', '-s', '--format=%B', sha)).toBe(`Fixed add: it subtracted.\n\nThe test passes now.\n\nRecur-Session: r\nRecur-Last-Event: r/${last.seq}\nRecur-Chain: ${last.hash}`);
  // Trailers git itself reads, so a reviewer's tooling finds the session and the chain.
  expect(git(repo, 'show', '-s', '--format=%(trailers:key=Recur-Session,valueonly)|%(trailers:key=Recur-Chain,valueonly)', sha)).toBe(`r\n|${last.hash}`);
  expect(git(repo, 'diff', '--name-status', 'main', sha)).toBe('M\tcalc.py\nA\tnotes.md');
  expect(git(repo, 'rev-parse', 'HEAD')).toBe(git(repo, 'rev-parse', 'main'));
  expect(git(repo, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
  // The checkout as it was: HEAD, branch and index untouched, the changes still in the working tree.
  expect(git(repo, 'status', '--porcelain')).toBe('M calc.py\n?? notes.md');
});

test('a run that did not pass makes no branch unless asked; one that changed nothing makes none; an existing branch is never moved', async () => {
  const { repo } = fixture();
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  const failed = run(repo, { type: 'SessionFailed', kind: 'budget', reason: 'spent', error: null });
  expect(await makeReviewBranch({ rootId: 'r', ...failed, branch: request() })).toBe('branch recur/fix-add not made: the run exited 2 (--branch-always makes it anyway)');
  expect(git(repo, 'branch', '--list', 'recur/fix-add')).toBe('');
  expect(await makeReviewBranch({ rootId: 'r', ...failed, branch: request({ always: true, author: 'Night Job <night@example.com>' }) })).toMatch(/^branch recur\/fix-add made: [0-9a-f]{40}$/);
  expect(git(repo, 'show', '-s', '--format=%an <%ae>|%s', 'recur/fix-add')).toBe('Night Job <night@example.com>|Recur session r');
  await expect(makeReviewBranch({ rootId: 'r', ...run(repo), branch: request() })).rejects.toThrow(/--branch recur\/fix-add: .*(exists|already)/);
  git(repo, 'checkout', '-q', '--', 'calc.py');
  expect(await makeReviewBranch({ rootId: 'r', ...run(repo), branch: request({ name: 'recur/nothing' }) })).toBe('branch recur/nothing not made: the session left no change to commit');
  await expect(makeReviewBranch({ rootId: 'r', ...run(repo), branch: request({ name: 'bad..name' }) })).rejects.toThrow('--branch "bad..name" is not a valid branch name');
  await expect(makeReviewBranch({ rootId: 'r', ...run(mkdtempSync(join(tmpdir(), 'recur-nogit-'))), branch: request() })).rejects.toThrow(/is not in a git repository/);
});

test("the repository's hooks never run: a planted post-commit or pre-push hook does nothing", async () => {
  const { repo, remote } = fixture();
  const marker = join(repo, '..', 'hook-ran');
  for (const hook of ['post-commit', 'pre-push', 'reference-transaction']) {
    writeFileSync(join(repo, '.git', 'hooks', hook), `#!/bin/sh\necho ${hook} >> ${marker}\n`, { mode: 0o755 });
  }
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a + b\n');
  await makeReviewBranch({ rootId: 'r', ...run(repo), branch: request({ push: remote }) });
  expect(() => readFileSync(marker, 'utf8')).toThrow(/ENOENT/);
  expect(git(remote, 'rev-parse', 'refs/heads/recur/fix-add')).toMatch(/^[0-9a-f]{40}$/);
});

test('the flags: --branch in CI mode only, and its companions only with it', () => {
  const { config } = parseConfig({ RECUR_HOME: mkdtempSync(join(tmpdir(), 'recur-branch-home-')) });
  expect(ciOptions({ ci: true, branch: 'recur/x', push: 'origin', 'branch-always': true }, config).branch).toEqual({ name: 'recur/x', push: 'origin', always: true, author: null });
  expect(() => ciOptions({ 'no-ci': true, branch: 'recur/x' }, config)).toThrow(ExitError);
  expect(() => ciOptions({ ci: true, push: 'origin' }, config)).toThrow('--push, --branch-always and --branch-author go with --branch NAME');
  expect(() => ciOptions({ ci: true, branch: '--push' }, config)).toThrow('--branch needs a value');
});
