import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { noStack } from '../helpers/no-stack';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

const dir = scriptsDir();
const work = mkdtempSync(join(tmpdir(), 'recur-ci-'));

function script(name: string, agents: Record<string, string[]>): string {
  const file = join(dir, `ci-${name}.json`);
  writeFileSync(file, JSON.stringify({ agents }));
  return `scripted:${file}`;
}

const junitOf = (file: string) => {
  const xml = readFileSync(file, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(xml);
};

describe('recur run --ci: exit codes, JUnit and summary from the tree log', () => {
  it('a gate red then green: exit 0, one plain line per event, a JUnit file that parses, the summary written and appended to GITHUB_STEP_SUMMARY', async () => {
    // The gate runs in the session's sandbox, which sees only the workspace: the run's --cwd.
    const workspace = mkdtempSync(join(work, 'ws-'));
    // A repository with a remote: the run leaves its net change on a branch there for a reviewer.
    const remote = join(work, 'remote.git');
    const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', ...args], { cwd, encoding: 'utf8' }).trim();
    git(work, 'init', '-q', '--bare', remote);
    git(workspace, 'init', '-q', '-b', 'main');
    writeFileSync(join(workspace, 'README'), 'app\n');
    git(workspace, 'add', '-A');
    git(workspace, 'commit', '-q', '-m', 'start');
    git(workspace, 'remote', 'add', 'origin', remote);
    const gate = 'test -f fixed && echo green || { touch fixed; echo "1 test failed"; exit 1; }';
    const model = script('gated', { root: ['All done.', 'Fixed it.'] });
    const [junit, summary, step] = ['junit.xml', 'summary.md', 'step-summary.md'].map((f) => join(work, f));
    writeFileSync(step, 'earlier step\n');
    const r = await recur([
      'run', 'make the gate pass', '--model', model, '--ci', '--autonomous', '--gate', gate, '--cwd', workspace, '--junit', junit, '--summary', summary,
      '--branch', 'recur/gate', '--push', 'origin',
    ], { env: { GITHUB_STEP_SUMMARY: step } });
    expect(r.stderr).toMatch(/recur: exit 0: \S+ completed/);
    expect(r.code).toBe(0);
    const sha = /recur: branch recur\/gate made: ([0-9a-f]{40}), pushed to origin/.exec(r.stderr)?.[1];
    expect(git(remote, 'rev-parse', 'refs/heads/recur/gate')).toBe(sha);
    expect(git(remote, 'diff', '--name-status', 'recur/gate^', 'recur/gate').split('\n')).toContain('A\tfixed');
    expect(git(remote, 'show', '-s', '--format=%s|%(trailers:key=Recur-Session,valueonly,separator=)', 'recur/gate')).toMatch(/^Fixed it\.\|\S+$/);
    expect(git(workspace, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    for (const line of r.lines) expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    const eventLines = r.lines.filter((l) => /^\S+ #\d+ [A-Z]\w+/.test(l));
    expect(eventLines.map((l) => l.split(' ')[2])).toEqual(expect.arrayContaining(['SessionStarted', 'GateChecked', 'ContinuationInjected', 'SessionCompleted']));
    expect(r.lines.slice(-1)).toEqual(['Fixed it.']);

    const doc = junitOf(junit);
    const [root] = doc.testsuites.testsuite;
    expect(doc.testsuites).toMatchObject({ tests: '3', failures: '1', errors: '0' });
    expect(root.testcase.map((c: { name: string; failure?: unknown }) => [c.name, c.failure !== undefined])).toEqual([
      ['session root', false], [`${gate} (round 1)`, true], [`${gate} (round 2)`, false],
    ]);
    expect(root.testcase[1].failure['#text']).toContain('1 test failed');

    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/^# Recur run `\S+`\n\n\*\*exit 0\*\*: \S+ completed/);
    for (const section of ['## Answer', '## Gates', '## Cost', '## Changes', '## Replay and verify']) expect(md).toContain(section);
    expect(md).toContain('Fixed it.');
    expect(readFileSync(step, 'utf8')).toBe(`earlier step\n${md}`);
  });

  it('a failed run exits 1 and its JUnit report names the failure; recur attach --ci on the ended run says the same', async () => {
    const junit = join(work, 'failed.xml');
    const r = await recur(['run', 'run out of script', '--model', script('exhausted', { root: [py('x = 1')] }), '--ci', '--junit', junit]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/recur: exit 1: \S+ failed \(script_exhausted\)/);
    expect(junitOf(junit).testsuites.testsuite[0].testcase[0].failure).toMatchObject({ type: 'script_exhausted' });
    const id = /session (\S+) started; CI mode/.exec(r.stderr)![1];
    const again = join(work, 'attached.xml');
    const attached = await recur(['attach', id, '--ci', '--junit', again]);
    expect(attached.code).toBe(1);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(junit, 'utf8'));
  });

  it('a budget that ends the run exits 2 (CI=true turns CI mode on)', async () => {
    const model = script('budget', { root: [py('x = 1'), 'Wrapping up.'] });
    const r = await recur(['run', 'count', '--model', model, '--goal', 'count to a million', '--goal-token-budget', '1'], { env: { CI: 'true' } });
    expect(r.stderr).toMatch(/recur: exit 2: \S+ failed \(budget\)/);
    expect(r.code).toBe(2);
  });

  it('no daemon or a bad flag is exit 3 in CI mode, and stays 1 or 2 with --no-ci', async () => {
    const away = await noStack();
    const model = script('never', { root: ['never run'] });
    const down = await recur(['run', 'x', '--model', model], { env: { ...away, CI: 'true' } });
    expect([down.code, down.stderr.trim()]).toEqual([3, 'recur: the Recur daemon is not running; start it with `recur up`']);
    expect((await recur(['run', 'x', '--model', model, '--no-ci'], { env: { ...away, CI: 'true' } })).code).toBe(1);
    expect((await recur(['run', 'x', '--bogus', '--ci'], { env: away })).code).toBe(3);
    expect((await recur(['run', 'x', '--bogus'], { env: away })).code).toBe(2);
    const detached = await recur(['run', 'x', '--model', model, '--detach', '--junit', join(work, 'never.xml'), '--ci'], { env: away });
    expect([detached.code, detached.stderr]).toEqual([3, expect.stringContaining('--junit and --summary wait for the end')]);
  });
});

describe('an audit bundle verifies and replays on a machine with no stack', () => {
  it('recur export, then audit verify --bundle --pubkey and replay --bundle with a fresh home and no service reachable', async () => {
    const model = script('bundle', { root: [py('big = "y" * 20000\nprint(big)'), py('n = len(big)'), py('print(n)'), py('final(str(n))')] });
    const run = await recur(['run', 'make blobs', '--model', model, '--json']);
    expect(run.code).toBe(0);
    const events = run.lines.map((l) => JSON.parse(l));
    const id = events[0].sessionId as string;
    expect(events.some((e) => e.type === 'CellExecuted' && e.event.outputsBlob)).toBe(true);
    // Three cells in, the kernel is snapshotted (RECUR_SNAPSHOT_EVERY_CELLS): a manifest blob naming each variable's pickle.
    expect(events.some((e) => e.type === 'KernelSnapshotted')).toBe(true);

    const file = join(work, `${id}.tar.gz`);
    const exported = await recur(['export', id, '--out', file, '--json']);
    expect(exported.code).toBe(0);
    const info = JSON.parse(exported.lines[0]);
    expect(info).toMatchObject({ records: events.length, missingBlobs: [], missingKeys: [] });
    expect(info.keys).toHaveLength(1);
    // The output blob, the manifest, and the pickles of `big` and `n` (the manifest names them; no event does).
    expect(info.blobs).toBeGreaterThanOrEqual(4);

    const away = await noStack();
    const pubkey = join(work, 'operator.pem');
    writeFileSync(pubkey, readFileSync(join(process.env.RECUR_HOME!, 'keys', 'public', `${info.keys[0]}.pem`)));
    const verified = await recur(['audit', 'verify', '--bundle', file, '--pubkey', pubkey], { env: away });
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    expect(verified.lines[0]).toMatch(new RegExp(`^verified ${id}: 1 session, ${events.length} events; .*every blob present and intact$`));
    expect(verified.lines).toContain(`  verified with the public key(s) given with --pubkey (${info.keys[0]})`);

    const replayed = await recur(['replay', '--bundle', file], { env: away });
    expect(replayed.code).toBe(0);
    expect(replayed.stderr).toBe('');
    expect(replayed.lines[0]).toMatch(new RegExp(`^replay of ${id}: 1 session, ${events.length} events`));
    expect(replayed.lines.join('\n')).toContain('outputsBlob: blob');

    // Where a Jupyter server is at hand, --verify re-runs the cells against the bundle's blobs (the big output is one).
    const rerun = await recur(['replay', '--bundle', file, '--verify']);
    expect(rerun.lines.slice(-1)[0]).toMatch(/^replayed \d+ cells: [1-9]\d* same, 0 differ, \d+ not replayable \(host call\), \d+ skipped, 0 unchecked$/);
    expect(rerun.code).toBe(0);
  });
});
