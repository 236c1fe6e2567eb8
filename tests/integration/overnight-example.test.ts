import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parse } from 'yaml';
import { repoRoot } from '../../services/home/repo-root';
import { noStack } from '../helpers/no-stack';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

/*
 * examples/github-actions/overnight.yml, run step by step on a fixture repository whose unit test
 * fails, with a scripted model that fixes it; its `uses:` of this repository's action runs
 * action.yml's own steps with the example's inputs. What sets up a GitHub runner (installing
 * and starting Recur, which the suite's stack stands for here) is skipped by name, as are
 * GitHub's own actions and the pull request `gh` would open.
 */

interface Step { name?: string; id?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, string>; 'working-directory'?: string }
interface Job { env?: Record<string, string>; steps: Step[] }
interface Action { inputs: Record<string, { default?: string; required?: boolean }>; outputs: Record<string, { value: string }>; runs: { steps: Step[] } }

const OURS = 'recur-dev/recur@';
const RUNNER_SETUP = ['Install Recur', 'Sandbox prerequisites', 'Start Recur', 'Stop Recur'];
const NOT_HERE = ['Open a pull request'];
const root = repoRoot();
const job = (parse(readFileSync(join(root, 'examples', 'github-actions', 'overnight.yml'), 'utf8')) as { jobs: { agent: Job } }).jobs.agent;
const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as Action;

const work = mkdtempSync(join(tmpdir(), 'recur-overnight-'));
const repo = join(work, 'app');
const remote = join(work, 'origin.git');
const runnerTemp = join(work, 'runner-temp');
const RUN_ID = '4242';

/** A scope of `steps.<id>.outputs`: the job's, or one composite action's run. */
type Outputs = Record<string, Record<string, string>>;
interface Scope { outputs: Outputs; inputs: Record<string, string>; env: Record<string, string> }

/** The `${{ }}` expressions the example and the action use; any other is this test's to learn, so it fails loudly. */
function value(expr: string, scope: Scope): string {
  const fixed: Record<string, string> = {
    'github.workspace': repo, 'github.run_id': RUN_ID, 'github.action_path': root, 'github.token': 'test-token', 'runner.os': 'Linux',
  };
  if (expr in fixed) return fixed[expr];
  if (expr.startsWith('secrets.')) return '';
  const step = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
  if (step) return scope.outputs[step[1]]?.[step[2]] ?? '';
  if (expr.startsWith('inputs.')) return scope.inputs[expr.slice(7)] ?? '';
  if (expr.startsWith('env.')) return scope.env[expr.slice(4)] ?? '';
  throw new Error(`the overnight example or the action uses \${{ ${expr} }}, which this test does not evaluate`);
}

const expand = (text: string, scope: Scope) => text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expr: string) => value(expr, scope));

/** `always()` and truthy expressions joined by `&&`; a step without `if` runs after passing steps. */
function shouldRun(step: Step, failed: boolean, scope: Scope): boolean {
  if (!step.if) return !failed;
  return step.if.split('&&').map((c) => c.trim()).every((c) => c === 'always()' || Boolean(value(c, scope)));
}

function fixtureRepo(): void {
  mkdirSync(repo);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(join(repo, 'test_calc.py'), 'import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n');
  writeFileSync(join(repo, 'AGENTS.md'), 'Run the tests with `python3 -m unittest`.\n');
  writeFileSync(join(repo, '.gitignore'), '__pycache__/\n');
  // As the example asks: the policy copied beside the workflow.
  mkdirSync(join(repo, '.github'));
  copyFileSync(join(root, 'examples', 'github-actions', 'recur-policy.json'), join(repo, '.github', 'recur-policy.json'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'add() and its test');
  execFileSync('git', ['init', '-q', '--bare', remote]);
  git('remote', 'add', 'origin', remote);
}

function runStep(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // GitHub's `shell: bash`: bash --noprofile --norc -eo pipefail.
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

const ran: Record<string, { code: number; output: string }> = {};
const skipped: string[] = [];

/** Runs steps in order in one scope, as a job (or a composite action) does; says whether one failed. */
async function runSteps(steps: Step[], scope: Scope, failedBefore: boolean): Promise<boolean> {
  let failed = failedBefore;
  for (const step of steps) {
    const name = step.name ?? step.uses ?? '';
    if (RUNNER_SETUP.includes(name) || NOT_HERE.includes(name) || (step.uses && !step.uses.startsWith(OURS))) {
      skipped.push(name);
      continue;
    }
    if (!shouldRun(step, failed, scope)) continue;
    const env: Record<string, string> = { ...scope.env };
    for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(String(v), { ...scope, env });
    if (step.uses) {
      const inputs = Object.fromEntries(Object.entries(action.inputs).map(([k, i]) => [k, expand(String(step.with?.[k] ?? i.default ?? ''), { ...scope, env })]));
      for (const [k, i] of Object.entries(action.inputs)) if (i.required && !inputs[k]) throw new Error(`the example leaves the action's required input ${k} unset`);
      const inner: Scope = { outputs: {}, inputs, env };
      failed = await runSteps(action.runs.steps, inner, failed);
      if (step.id) scope.outputs[step.id] = Object.fromEntries(Object.entries(action.outputs).map(([k, o]) => [k, expand(o.value, inner)]));
      continue;
    }
    const output = join(work, `output-${Object.keys(ran).length}`);
    writeFileSync(output, '');
    env.GITHUB_OUTPUT = output;
    const dir = step['working-directory'] ? expand(step['working-directory'], { ...scope, env }) : repo;
    const r = await runStep(expand(step.run!, { ...scope, env }), isAbsolute(dir) ? dir : join(repo, dir), env);
    ran[name] = r;
    failed ||= r.code !== 0;
    if (step.id) scope.outputs[step.id] = Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => l.split(/=(.*)/s, 2)));
  }
  return failed;
}

describe('the overnight GitHub Actions example, run locally', () => {
  it('gate red, edit, gate green, exit 0; a pushed branch for the reviewer; the JUnit file parses, the bundle verifies with no stack, recur diff shows the fix', async () => {
    fixtureRepo();
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    const script = join(scriptsDir(), 'overnight-example.json');
    writeFileSync(script, JSON.stringify({
      agents: {
        root: [
          'The suite should pass now.',
          py('print(files.edit("calc.py", "return a - b", "return a + b"))'),
          'Fixed add(): it subtracted.',
        ],
      },
    }));
    const base = process.env as Record<string, string>;
    const stepSummary = join(work, 'step-summary.md');
    mkdirSync(runnerTemp);
    const env: Record<string, string> = {
      ...base, CI: 'true', GITHUB_WORKSPACE: repo, GITHUB_STEP_SUMMARY: stepSummary, RUNNER_TEMP: runnerTemp, RUNNER_OS: 'Linux',
      PATH: `${join(root, 'bin')}:${base.PATH}`,
    };
    for (const [k, v] of Object.entries(job.env ?? {})) env[k] = expand(String(v), { outputs: {}, inputs: {}, env });
    // What a real job configures differently: the model and the fixture's test command.
    const ours = job.steps.find((s) => s.uses?.startsWith(OURS))!;
    Object.assign(ours.with!, { model: `scripted:${script}`, gate: 'python3 -m unittest' });
    const jobScope: Scope = { outputs: {}, inputs: {}, env };
    expect(await runSteps(job.steps, jobScope, false)).toBe(false);

    expect(Object.keys(ran)).toEqual(['Run the agent', 'Push the branch', 'Audit bundle', "The run's verdict"]);
    expect(skipped).toEqual(expect.arrayContaining([...RUNNER_SETUP, ...NOT_HERE, 'actions/upload-artifact@v4']));
    const agent = ran['Run the agent'];
    expect(agent.output).toMatch(/recur: exit 0: \S+ completed/);
    expect(agent.code).toBe(0);
    expect(ran['Audit bundle']).toMatchObject({ code: 0 });
    const out = jobScope.outputs.recur;
    expect(out).toMatchObject({ 'exit-code': '0', branch: `recur/overnight-${RUN_ID}`, reports: join(runnerTemp, 'recur-reports'), bundle: join(runnerTemp, 'recur-reports', 'bundle.tar.gz') });
    const session = out.session;
    expect(session).toMatch(/\S/);

    // The run's story, from its own report: the gate failed, the agent edited, the gate passed.
    const reports = out.reports;
    for (const f of ['junit.xml', 'summary.md', 'bundle.tar.gz', 'changes.diff']) expect(existsSync(join(reports, f))).toBe(true);
    const xml = readFileSync(join(reports, 'junit.xml'), 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) }).parse(xml);
    const cases = junit.testsuites.testsuite[0].testcase as { name: string; failure?: { '#text': string } }[];
    expect(cases.map((c) => [c.name, c.failure !== undefined])).toEqual([
      ['session root', false], ['python3 -m unittest (round 1)', true], ['python3 -m unittest (round 2)', false],
    ]);
    expect(cases[1].failure!['#text']).toContain('AssertionError: -1 != 5');
    expect(readFileSync(stepSummary, 'utf8')).toBe(readFileSync(join(reports, 'summary.md'), 'utf8'));

    // The fix is on disk, and on the reviewer's branch, pushed: a commit over HEAD naming the session.
    expect(readFileSync(join(repo, 'calc.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim()).toBe(head);
    const pushed = (args: string[]) => execFileSync('git', ['--git-dir', remote, ...args], { encoding: 'utf8' });
    expect(pushed(['rev-parse', `recur/overnight-${RUN_ID}~1`]).trim()).toBe(head);
    expect(pushed(['show', `recur/overnight-${RUN_ID}:calc.py`])).toBe('def add(a, b):\n    return a + b\n');
    expect(pushed(['log', '-1', '--format=%B', `recur/overnight-${RUN_ID}`])).toContain(`Recur-Session: ${session}`);
    const diff = await recur(['diff', session]);
    expect(diff.code).toBe(0);
    expect(diff.lines).toEqual(expect.arrayContaining(['-    return a - b', '+    return a + b']));
    expect(readFileSync(join(reports, 'changes.diff'), 'utf8')).toContain('+    return a + b');

    // Another machine: an empty home and nothing listening where the stack would be.
    const away = await noStack();
    const verified = await recur(['audit', 'verify', '--bundle', join(reports, 'bundle.tar.gz')], { env: away });
    expect(verified.code).toBe(0);
    const replayed = await recur(['replay', '--bundle', join(reports, 'bundle.tar.gz')], { env: away });
    expect(replayed.code).toBe(0);
    expect(replayed.lines.join('\n')).toMatch(/WorkspaceChanged  cell 1 file[^\n]*\n\s+M calc\.py  \+1 -1/);
  });
});
