import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { parse } from 'yaml';
import { repoRoot } from '../../services/home/repo-root';
import { noStack } from '../helpers/no-stack';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

/*
 * examples/github-actions/overnight.yml, its own `run` steps executed in order on a fixture
 * repository whose unit test fails, with a scripted model that fixes it. Only what sets up a
 * GitHub runner is left to the suite's stack (RUNNER_SETUP); `uses:` actions are GitHub's.
 */

interface Step { name?: string; id?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, string> }
interface Job { env: Record<string, string>; steps: Step[] }

const RUNNER_SETUP = ['Sandbox prerequisites', 'Install and start Recur', 'Stop Recur'];
const workflow = parse(readFileSync(join(repoRoot(), 'examples', 'github-actions', 'overnight.yml'), 'utf8')) as { jobs: { agent: Job } };
const job = workflow.jobs.agent;

const work = mkdtempSync(join(tmpdir(), 'recur-overnight-'));
const repo = join(work, 'app');
const outputs: Record<string, Record<string, string>> = {};

/** The `${{ }}` expressions the example uses; any other is this test's to learn, so it fails loudly. */
function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expr: string) => {
    if (expr === 'github.workspace') return repo;
    if (expr.startsWith('secrets.')) return '';
    const step = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr);
    if (step) return outputs[step[1]]?.[step[2]] ?? '';
    if (expr.startsWith('env.')) return env[expr.slice(4)] ?? '';
    throw new Error(`the overnight example uses \${{ ${expr} }}, which this test does not evaluate`);
  });
}

/** `always()` and `steps.<id>.outputs.<name>` joined by `&&`; a step without `if` runs after passing steps. */
function shouldRun(step: Step, failed: boolean): boolean {
  if (!step.if) return !failed;
  return step.if.split('&&').map((c) => c.trim()).every((c) => {
    if (c === 'always()') return true;
    const out = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(c);
    if (out) return Boolean(outputs[out[1]]?.[out[2]]);
    throw new Error(`the overnight example's condition ${c} is not one this test evaluates`);
  });
}

function fixtureRepo(): void {
  mkdirSync(repo);
  writeFileSync(join(repo, 'calc.py'), 'def add(a, b):\n    return a - b\n');
  writeFileSync(join(repo, 'test_calc.py'), 'import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n');
  writeFileSync(join(repo, 'AGENTS.md'), 'Run the tests with `python3 -m unittest`.\n');
  writeFileSync(join(repo, '.gitignore'), '__pycache__/\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'add() and its test');
}

function runStep(script: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-e', '-c', script], { cwd: repo, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

describe('the overnight GitHub Actions example, run locally', () => {
  it('gate red, edit, gate green, exit 0; the JUnit file parses, the bundle verifies with no stack, recur diff shows the fix', async () => {
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
    const jobEnv: Record<string, string> = { ...base, CI: 'true', GITHUB_WORKSPACE: repo, GITHUB_STEP_SUMMARY: stepSummary, PATH: `${join(repoRoot(), 'bin')}:${base.PATH}` };
    for (const [k, v] of Object.entries(job.env)) jobEnv[k] = expand(String(v), jobEnv);
    // What a real job configures differently: the model and the fixture's test command.
    Object.assign(jobEnv, { RECUR_MODEL: `scripted:${script}`, JOB_GATE: 'python3 -m unittest' });

    const ran: Record<string, { code: number; output: string }> = {};
    let failed = false;
    for (const step of job.steps) {
      if (step.uses || RUNNER_SETUP.includes(step.name ?? '')) continue;
      if (!shouldRun(step, failed)) continue;
      const output = join(work, `output-${step.id ?? Object.keys(ran).length}`);
      writeFileSync(output, '');
      const env: Record<string, string> = { ...jobEnv, GITHUB_OUTPUT: output };
      for (const [k, v] of Object.entries(step.env ?? {})) env[k] = expand(String(v), env);
      const r = await runStep(step.run!, env);
      ran[step.name!] = r;
      failed ||= r.code !== 0;
      if (step.id) outputs[step.id] = Object.fromEntries(readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => l.split(/=(.*)/s, 2)));
    }
    expect(Object.keys(ran)).toEqual(['Run the agent', 'Audit bundle']);
    const agent = ran['Run the agent'];
    expect(agent.output).toMatch(/recur: exit 0: \S+ completed/);
    expect(agent.code).toBe(0);
    expect(ran['Audit bundle']).toMatchObject({ code: 0 });
    const session = outputs.agent.session;
    expect(session).toMatch(/\S/);

    // The run's story, from its own report: the gate failed, the agent edited, the gate passed.
    const reports = jobEnv.JOB_REPORTS;
    const upload = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    expect(expand(upload.with!.path, jobEnv)).toBe(reports);
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

    // The fix is on disk, uncommitted, and the log says so.
    expect(readFileSync(join(repo, 'calc.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim()).toBe(head);
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
