import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { FailureKind, RecurEventInput, WorkspaceFileChange } from '../../schemas';
import { CI_EXIT, FAILURE_EXIT, asInfrastructureExit, ciVerdict } from '../../services/cli/ci/exit-codes';
import { ciEnabled, ciOptions } from '../../services/cli/ci/ci-flags';
import { recordSessionOutput } from '../../services/cli/ci/finish-run';
import { parseConfig } from '../../config';
import { renderJunit } from '../../services/cli/ci/junit';
import { renderSummary } from '../../services/cli/ci/summary';
import { ExitError, RecurError, StackError } from '../../errors';
import { chain, ev } from '../helpers/replay-tree-fixture';

const gate = (command: string, passed: boolean, attempt: number, output = passed ? 'ok' : 'FAIL: 1 test'): RecurEventInput => ({
  type: 'GateChecked', command, passed, exitCode: passed ? 0 : 1, output, durationMs: 1500, attempt,
});
const failed = (kind: FailureKind, reason = `ended by ${kind}`): RecurEventInput => ({ type: 'SessionFailed', kind, reason, error: null });

const fileChange = (path: string, change: WorkspaceFileChange['change'], over: Partial<WorkspaceFileChange> = {}): WorkspaceFileChange => ({
  path, change, binary: false, overCap: false, oldHash: null, newHash: null, size: 1, linesAdded: 1, linesDeleted: 0, kind: 'file', sensitive: null, ...over,
});
const scanned = (...files: WorkspaceFileChange[]): RecurEventInput => ({
  type: 'WorkspaceChanged', workspace: '/w', reason: 'cell', requestId: null, scan: 1, baseManifest: { sha256: 'a'.repeat(64), size: 1 }, manifest: { sha256: 'b'.repeat(64), size: 1 },
  diff: null, files, filesTotal: files.length, overCapFiles: 0, overCapBytes: 0, ignored: null, git: null, netDiff: null, durationMs: 1,
});

/** Root edits a CI workflow (twice) and a plain file; its child adds a git hook and edits package scripts with a `|` in the path. */
function outsideTree() {
  const root = chain('r', [
    [100, ev.started('root', 0)], [110, ev.spawned('r/fix')],
    [120, scanned(fileChange('.github/workflows/ci.yml', 'added', { sensitive: '.github/workflows/**' }), fileChange('a.txt', 'added'))],
    [130, scanned(fileChange('.github/workflows/ci.yml', 'modified', { sensitive: '.github/workflows/**' }))],
    [400, ev.completed('done')],
  ]);
  const child = chain('r/fix', [
    [111, ev.started('fix', 1, 'r')],
    [150, scanned(fileChange('.git/hooks/pre-commit', 'added', { kind: 'git-meta' }), fileChange('web|x/package.json', 'modified', { sensitive: 'package.json#scripts' }))],
    [190, ev.completed('patched')],
  ]);
  return [...root.records, ...child.records];
}

/** Root spawns `fix`, whose gate fails once then passes; the child completes, then the root. */
function gatedTree(rootEnd: RecurEventInput = ev.completed('fixed the test')) {
  const root = chain('r', [[100, ev.started('root', 0)], [110, ev.spawned('r/fix')], [200, gate('npm test', false, 1)], [300, gate('npm test', true, 2)], [400, rootEnd]]);
  const child = chain('r/fix', [[111, ev.started('fix', 1, 'r')], [150, ev.model(1)], [190, ev.completed('patched')]]);
  return [...root.records, ...child.records];
}

describe('CI exit codes', () => {
  it('every failure kind has a code; budgets and limits are 2, provider, kernel and internal failures 3, the rest 1', () => {
    expect(FAILURE_EXIT).toEqual({
      budget: 2, max_turns: 2, max_depth: 2, timeout: 2, approval_refused: 2, script_exhausted: 1, cancelled: 1, model_error: 3, kernel_error: 3, internal: 3,
    });
  });

  it('a completed root whose last gate round passed is 0, even after a red round', () => {
    const events = gatedTree();
    expect(ciVerdict(events.find((e) => e.sessionId === 'r' && e.type === 'SessionCompleted')!, events)).toEqual({ code: 0, reason: 'r completed' });
  });

  it('a completed root whose gate failed its last run is 1, naming the gate', () => {
    const log = chain('r', [[100, ev.started('root', 0)], [200, gate('npm test', true, 1)], [210, gate('npm run lint', false, 1)], [300, ev.completed()]]);
    const v = ciVerdict(log.records[3], log.records);
    expect(v.code).toBe(CI_EXIT.failed);
    expect(v.reason).toContain('"npm run lint" failed its last run');
  });

  it.each([['max_turns', 2], ['budget', 2], ['approval_refused', 2], ['cancelled', 1], ['internal', 3]] as const)('a root that failed with %s exits %d', (kind, code) => {
    const log = chain('r', [[100, ev.started('root', 0)], [200, failed(kind)]]);
    expect(ciVerdict(log.records[1], log.records)).toEqual({ code, reason: `r failed (${kind}): ended by ${kind}` });
  });

  it('whatever stopped the run from happening or being followed becomes exit 3 with its message and hint', () => {
    expect(asInfrastructureExit(new ExitError(1, 'the Recur daemon is not running'))).toMatchObject({ code: 3, message: 'the Recur daemon is not running' });
    expect(asInfrastructureExit(new StackError('kafka', 'down', 'recur up'))).toMatchObject({ code: 3, message: 'kafka: down\n  → recur up' });
    expect(asInfrastructureExit(new TypeError('x is undefined')).message).toMatch(/^internal error — this is a bug[\s\S]*TypeError: x is undefined/);
    expect(asInfrastructureExit(new RecurError('bad flag'))).toBeInstanceOf(ExitError);
  });
});

describe('CI mode switch', () => {
  it('is on with --ci or CI=true (or 1), off with --no-ci whatever CI says, and another CI value leaves it off rather than failing', () => {
    expect([ciEnabled({}, {}), ciEnabled({ ci: true }, {}), ciEnabled({}, { CI: 'true' }), ciEnabled({}, { CI: '1' }), ciEnabled({}, { CI: 'TRUE ' })]).toEqual([false, true, true, true, true]);
    expect([ciEnabled({ 'no-ci': true }, { CI: 'true' }), ciEnabled({ ci: true, 'no-ci': true }, {}), ciEnabled({}, { CI: 'woodpecker' })]).toEqual([false, false, false]);
  });

  it("appends the session's id to $GITHUB_OUTPUT in CI mode only, after what earlier steps wrote", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'recur-ci-')), 'output');
    writeFileSync(file, 'earlier=1\n');
    const { config } = parseConfig({ GITHUB_OUTPUT: file });
    recordSessionOutput(ciOptions({ 'no-ci': true }, config), 'off-session');
    recordSessionOutput(ciOptions({ ci: true }, config), 'r-1');
    expect(readFileSync(file, 'utf8')).toBe('earlier=1\nsession=r-1\n');
  });
});

describe('JUnit report', () => {
  const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml);

  it('has a testsuite per session with a testcase for the session and one per gate run, failures carrying the output', () => {
    const xml = renderJunit('r', gatedTree());
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = parse(xml);
    expect(doc.testsuites).toMatchObject({ name: 'recur r', tests: '4', failures: '1', errors: '0', time: '0.300' });
    const [root, child] = doc.testsuites.testsuite;
    expect(root).toMatchObject({ name: 'r', tests: '3', failures: '1', timestamp: new Date(100).toISOString() });
    expect(root.testcase.map((c: { name: string }) => c.name)).toEqual(['session root', 'npm test (round 1)', 'npm test (round 2)']);
    expect(root.testcase[0]['system-out']).toBe('fixed the test');
    expect(root.testcase[1].failure).toMatchObject({ message: 'exited 1', type: 'gate', '#text': 'FAIL: 1 test' });
    expect(root.testcase[1].time).toBe('1.500');
    expect(root.testcase[2].failure).toBeUndefined();
    expect(child).toMatchObject({ name: 'r/fix', tests: '1', failures: '0' });
    expect(child.testcase[0]).toMatchObject({ classname: 'r/fix', name: 'session fix', time: '0.079' });
  });

  it('a failed session is a failure with its kind and reason; one with no end is an error', () => {
    const root = chain('r', [[100, ev.started('root', 0)], [110, ev.spawned('r/a')], [200, failed('max_turns', 'reached 10 turns')]]);
    const child = chain('r/a', [[111, ev.started('a', 1, 'r')]]);
    const doc = parse(renderJunit('r', [...root.records, ...child.records]));
    expect(doc.testsuites).toMatchObject({ tests: '2', failures: '1', errors: '1' });
    expect(doc.testsuites.testsuite[0].testcase[0].failure).toMatchObject({ type: 'max_turns', message: 'max_turns: reached 10 turns' });
    expect(doc.testsuites.testsuite[1].testcase[0].error).toMatchObject({ type: 'not-ended', message: 'no end event logged' });
  });

  it('changes that run outside Recur come first, a failed testcase per session and path, git metadata before sensitive paths', () => {
    const xml = renderJunit('r', outsideTree());
    expect(XMLValidator.validate(xml)).toBe(true);
    const doc = parse(xml);
    expect(doc.testsuites).toMatchObject({ tests: '5', failures: '3', errors: '0' });
    const [outside, root, child] = doc.testsuites.testsuite;
    expect(outside).toMatchObject({ name: 'changes that run outside Recur', tests: '3', failures: '3' });
    expect(outside.testcase.map((c: { classname: string; name: string }) => [c.classname, c.name])).toEqual([
      ['r.outside', '.github/workflows/ci.yml (added, modified)'], ['r/fix.outside', '.git/hooks/pre-commit (added)'], ['r/fix.outside', 'web|x/package.json (modified)'],
    ]);
    expect(outside.testcase[0].failure).toMatchObject({ type: 'sensitive-path', message: expect.stringMatching(/^sensitive path \(rule \.github\/workflows\/\*\*\): runs or is read later outside Recur/) });
    expect(outside.testcase[0].failure['#text']).toBe('.github/workflows/ci.yml added, modified by r (last flagged in r/3)');
    expect(outside.testcase[1].failure).toMatchObject({ type: 'git-meta', message: expect.stringMatching(/^git metadata: /) });
    expect([root.name, root.failures, child.name]).toEqual(['r', '0', 'r/fix']);
    expect(parse(renderJunit('r', gatedTree())).testsuites.testsuite[0].name).toBe('r');
  });

  it('output with terminal controls, markup and CDATA ends stays well-formed XML and reads back', () => {
    const output = 'red \u001b[31mFAIL\u001b[0m <b>&amp; &lt;</b> ]]> \u0007done "q"';
    const log = chain('r', [[100, ev.started('root', 0)], [200, gate('make <check> && echo "&amp;"', false, 1, output)], [300, failed('internal')]]);
    const xml = renderJunit('r', log.records);
    expect(XMLValidator.validate(xml)).toBe(true);
    const gateCase = parse(xml).testsuites.testsuite[0].testcase[1];
    expect(gateCase.name).toBe('make <check> && echo "&amp;" (round 1)');
    expect(gateCase.failure['#text']).toBe('red \uFFFD[31mFAIL\uFFFD[0m <b>&amp; &lt;</b> ]]> \uFFFDdone "q"');
  });
});

describe('Markdown summary', () => {
  it('gives the verdict, the answer fenced, every gate run, the cost per session, the diff stat and how to replay and verify', () => {
    const events = gatedTree(ev.completed('fixed it\n```\n<script>x</script>'));
    const netDiff = 'diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n';
    const md = renderSummary({ treeId: 'r', events, verdict: { code: 0, reason: 'r completed' }, netDiff });
    expect(md).toContain('# Recur run `r`\n\n**exit 0**: r completed (2 sessions, 8 events)');
    expect(md).toContain('## Answer\n\n````text\nfixed it\n```\n<script>x</script>\n````');
    expect(md).toContain('| r | 1 | `npm test` | FAILED | 1 | 1.5s |\n| r | 2 | `npm test` | passed | 0 | 1.5s |');
    expect(md).not.toContain('(last run)'); // the last round passed: no failing output to show
    expect(md).toMatch(/## Cost\n\n\| session \|[^\n]*\n[^\n]*\n\| r \| completed \| 0 \| 0 \| 0 \| 0\.0000 \| 0\.3 \|\n\| &nbsp;&nbsp;r\/fix \| completed \| 1 \| 10 \| 5 \| 0\.0000 \| 0\.1 \|\n\| \*\*tree\*\* \| \| 1 \| 10 \| 5 \| 0\.0000 \| 0\.3 \|/);
    expect(md).toMatch(/## Changes\n\n```text\n calc\.py \| 2 \+-\n 1 file changed, 1 insertion\(\+\), 1 deletion\(-\)\n```\nThe whole diff: `recur diff r`\./);
    expect(md).toContain('recur audit verify --bundle r.tar.gz --pubkey <keyId>.pem\nrecur replay --bundle r.tar.gz');
    expect(md).toMatch(/Signed by key `[0-9a-f]{32}`\./);
  });

  it('lists changes that run outside Recur first, right under the verdict: path, change and rule or git metadata, per session', () => {
    const md = renderSummary({ treeId: 'r', events: outsideTree(), verdict: { code: 0, reason: 'r completed' }, netDiff: null });
    expect(md).toMatch(/^# Recur run `r`\n\n\*\*exit 0\*\*[^\n]*\n\n## Changes that run outside Recur\n\n3 files that CI, an editor/);
    expect(md).toContain([
      '| session | path | change | why |', '|---|---|---|---|',
      '| r | `.github/workflows/ci.yml` | added, modified | rule `.github/workflows/**` |',
      '| r/fix | `.git/hooks/pre-commit` | added | git metadata |',
      '| r/fix | `web\\|x/package.json` | modified | rule `package.json#scripts` |',
    ].join('\n'));
    expect(md.indexOf('## Changes that run outside Recur')).toBeLessThan(md.indexOf('## Answer'));
    expect(md).not.toContain('a.txt');
    expect(renderSummary({ treeId: 'r', events: gatedTree(), verdict: { code: 0, reason: 'r completed' }, netDiff: null })).not.toContain('outside Recur');
  });

  it('a run the approval policy ended in CI mode names the request in the summary and in JUnit', () => {
    const why = 'egress "pypi.org:443" needs an operator\'s yes, and in CI mode nobody is there to give it: the policy ends the run (approvals.ci.egress is "end", docs/approvals.md) (approval r/7)';
    const log = chain('r', [[100, ev.started('root', 0)], [200, failed('approval_refused', why)]]);
    const verdict = ciVerdict(log.records[1], log.records);
    expect(verdict).toEqual({ code: 2, reason: `r failed (approval_refused): ${why}` });
    const md = renderSummary({ treeId: 'r', events: log.records, verdict, netDiff: null });
    expect(md).toContain('## Failure\n\n**approval_refused**: egress "pypi.org:443" needs an operator\'s yes');
    expect(md).toContain('approvals.ci.egress is "end"');
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(renderJunit('r', log.records));
    expect(xml.testsuites.testsuite[0].testcase[0].failure).toMatchObject({ type: 'approval_refused', message: `approval_refused: ${why}` });
  });

  it('a failed root shows why, and a gate that failed last shows its output; table cells cannot break the table', () => {
    const log = chain('r', [[100, ev.started('root', 0)], [200, gate('test | tee log', false, 1, 'boom')], [300, failed('max_turns', 'reached | 10 turns')]]);
    const md = renderSummary({ treeId: 'r', events: log.records, verdict: { code: 2, reason: 'r failed (max_turns)' }, netDiff: null });
    expect(md).toContain('## Failure\n\n**max_turns**: reached \\| 10 turns');
    expect(md).toContain('| r | 1 | `test \\| tee log` | FAILED | 1 | 1.5s |');
    expect(md).toContain('Output of `test | tee log` (last run):\n```text\nboom\n```');
    expect(md).not.toContain('## Answer');
    expect(md).toContain('## Changes\n\nNo change to the workspace was logged.');
  });
});
