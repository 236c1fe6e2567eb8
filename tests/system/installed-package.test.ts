import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parseConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import { repoRoot } from '../../services/home/repo-root';
import { sandboxKey, sandboxRoot } from '../../services/sandbox';
import { ordinaryUser } from '../helpers/as-user';
import { ESCAPES, attemptOutputs, escapeCells } from '../helpers/escape-attempts';
import { noStack } from '../helpers/no-stack';
import { py } from '../helpers/session-harness';

/*
 * Recur as a team gets it: the tarball `npm pack` makes, installed with `npm install -g` into a
 * prefix of an unprivileged user's own, and run by that user from a directory that is not the
 * checkout. The user's first `recur up` installs the stack's tools into its home; then the
 * overnight job: a repository the user owns whose test fails, CI mode with a gate, a scripted
 * fix, JUnit, summary, a branch for the reviewer, a bundle verified where nothing runs; and the
 * containment suite's escape attempts, made from that user's kernels.
 */

const user = ordinaryUser(`${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`);
const work = join(user.home, 'recur-system-test');
const prefix = join(work, 'prefix');
const app = join(work, 'app');
const reports = join(work, 'reports');
const home = join(work, 'home');
// A port block of its own: the integration tier's stack (29192, …) runs beside this one.
const stackEnv: Record<string, string> = {
  RECUR_HOME: home,
  RECUR_KAFKA_PORT: '26192', RECUR_KAFKA_CONTROLLER_PORT: '26193', RECUR_TEMPORAL_PORT: '26233',
  RECUR_TEMPORAL_HTTP_PORT: '26243', RECUR_TEMPORAL_METRICS_PORT: '26253', RECUR_JUPYTER_PORT: '26988', RECUR_DAEMON_PORT: '26300',
};
const SECRET = `sk-recur-system-test-${process.pid}`;
const PATH = `${prefix}/bin:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
const recur = (script: string, opts: { cwd?: string; env?: Record<string, string> } = {}) =>
  user.sh(script, { cwd: opts.cwd ?? work, env: { PATH, ...stackEnv, ...opts.env } });
const must = async (what: string, script: string, opts?: Parameters<typeof recur>[1]) => {
  const r = await recur(script, opts);
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r.out;
};

let tarball = '';
let installed = '';
let session = '';

beforeAll(async () => {
  await user.sh(`recur down >/dev/null 2>&1; rm -rf '${work}' && mkdir -p '${work}'`, { cwd: user.home, env: { PATH, ...stackEnv } });
  // npm pack builds (prepare) into dist/, which the integration tier beside this one runs from:
  // it packs a copy of the source instead, with the checkout's node modules.
  const packDir = mkdtempSync(join(tmpdir(), 'recur-pack-'));
  chmodSync(packDir, 0o755);
  const src = join(packDir, 'src');
  mkdirSync(src);
  execFileSync('bash', ['-c', `tar -C '${repoRoot()}' --exclude=./node_modules --exclude=./dist --exclude=./.recur --exclude=./reports --exclude=./.git -cf - . | tar -C '${src}' -xf -`]);
  symlinkSync(join(repoRoot(), 'node_modules'), join(src, 'node_modules'));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: src, encoding: 'utf8' }).trim().split('\n').pop()!;
  tarball = join(packDir, name);
  chmodSync(tarball, 0o644);
}, 300_000);

afterAll(async () => {
  await recur('recur down');
}, 120_000);

describe('the packed tarball, installed and run by an unprivileged user outside any checkout', () => {
  test('holds the compiled code, the kernel package, the lock files and the viewer, and no tests', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').map((f) => f.replace(/^package\//, ''));
    expect(files).toEqual(expect.arrayContaining([
      'bin/recur', 'dist/services/cli/main.js', 'dist/workflow-bundles/sessions.js', 'dist/ui/index.html',
      'kernel/recur_kernel/__init__.py', 'kernel/recur_jupyter/confine.py', 'npm-shrinkwrap.json',
      'services/devstack/python/requirements.lock', 'services/devstack/kafka/jars.sha256', 'docs/ci.md',
    ]));
    expect(files.filter((f) => /^(tests|bench|dist\/bench|ui)\/|__pycache__|\.test\.|^kernel\/tests/.test(f))).toEqual([]);
  });

  test('npm install -g into the user\'s prefix; recur up installs the tools into its home and starts the stack', async () => {
    expect(user.uid).not.toBe(0);
    await must('npm install -g', `npm install -g --prefix '${prefix}' --no-audit --no-fund --loglevel=error '${tarball}'`);
    installed = join(prefix, 'lib', 'node_modules', 'recur');
    expect(statSync(join(installed, 'dist', 'services', 'cli', 'main.js')).uid).toBe(user.uid);
    // Small limits make the escape attempts below quick; the marker is what a provider key looks like to a kernel.
    const up = await must('recur up', 'recur up', { env: {
      OPENAI_API_KEY: SECRET, RECUR_SANDBOX_MEMORY_MIB: '1024', RECUR_SANDBOX_MAX_PROCESSES: '64', RECUR_SANDBOX_MAX_OPEN_FILES: '256', RECUR_SANDBOX_MAX_FILE_MIB: '1',
    } });
    expect(up).toMatch(/stack up in/);
    const status = JSON.parse(await must('recur status', 'recur status --json'));
    expect(status.sandbox.mode).toBe('on');
    expect(status.kernels).toEqual({ as: 'invoking-user', uid: user.uid });
  }, 600_000);

  test('the overnight job: red gate, scripted fix, green gate, JUnit, summary, a branch, a bundle verified with nothing running', async () => {
    await must('the fixture repository', `set -e
mkdir -p '${app}' && cd '${app}'
printf 'def add(a, b):\\n    return a - b\\n' > calc.py
printf 'import unittest\\n\\nfrom calc import add\\n\\n\\nclass AddTest(unittest.TestCase):\\n    def test_add(self):\\n        self.assertEqual(add(2, 3), 5)\\n' > test_calc.py
printf '__pycache__/\\n' > .gitignore
git init -q -b main && git add -A && git -c user.name=dev -c user.email=dev@example.com commit -qm 'add() and its test'
mkdir -p '${home}/scripts'
cat > '${home}/scripts/fix.json' <<'EOF'
${JSON.stringify({ agents: { root: ['The suite should pass now.', py('print(files.edit("calc.py", "return a - b", "return a + b"))'), 'Fixed add(): it subtracted.'] } })}
EOF`);
    const run = await recur(`recur run 'Make the test suite pass.' --cwd . --model 'scripted:${home}/scripts/fix.json' --autonomous \
      --gate 'python3 -m unittest' --junit '${reports}/junit.xml' --summary '${reports}/summary.md' --branch recur/fix`, { cwd: app, env: { CI: 'true' } });
    expect(run.out).toMatch(/recur: exit 0: \S+ completed/);
    expect(run.code).toBe(0);
    session = /session (\S+) started; CI mode/.exec(run.out)![1];

    const junit = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (n) => ['testsuite', 'testcase'].includes(n) })
      .parse(await must('read junit', `cat '${reports}/junit.xml'`));
    expect((junit.testsuites.testsuite[0].testcase as { name: string; failure?: unknown }[]).map((c) => [c.name, c.failure !== undefined])).toEqual([
      ['session root', false], ['python3 -m unittest (round 1)', true], ['python3 -m unittest (round 2)', false],
    ]);
    expect(await must('read summary', `cat '${reports}/summary.md'`)).toContain(session);

    // The fix is the user's file, on a branch of the user's repository; the checkout is untouched.
    expect(statSync(join(app, 'calc.py')).uid).toBe(user.uid);
    for (const f of readdirSync(app)) expect([f, statSync(join(app, f)).uid]).toEqual([f, user.uid]);
    const commit = await must('git log', 'git log -1 --format=%B recur/fix && git show recur/fix:calc.py && git status --porcelain', { cwd: app });
    expect(commit).toContain(`Recur-Session: ${session}`);
    expect(commit).toContain('return a + b');

    await must('recur export', `recur export ${session} --out '${reports}/bundle.tar.gz'`);
    const away = await noStack();
    const verified = await must('recur audit verify', `recur audit verify --bundle '${reports}/bundle.tar.gz' --pubkey '${home}'/keys/public/*.pem`, { env: away });
    expect(verified).toMatch(/verified with the public key\(s\) given with --pubkey/);
  }, 300_000);

  test('the containment suite\'s escape attempts, from the user\'s own kernels, all fail', async () => {
    const config = parseConfig(stackEnv).config;
    // The overnight session is the victim: its workspace holds a note no other kernel may read.
    await must('the note', `echo 'victim data' > '${app}/notes.txt'`);
    const status = JSON.parse(await must('recur status', 'recur status --json'));
    const worker = status.services.find((s: { name: string }) => s.name === 'worker').pid as number;
    const targets = {
      home, repo: installed, venv: stackPaths(config).venv, worker_pid: worker, secrets: [SECRET],
      ports: Object.fromEntries(Object.entries(config.ports).map(([k, v]) => [k, Number(v)])),
      victim_dir: join(sandboxRoot(config), sandboxKey(session)), victim_workspace: app, victim_id: session,
    };
    await must('the attempts script', `cat > '${home}/scripts/escape.json' <<'EOF'
${JSON.stringify({ agents: { root: [...escapeCells(targets), py('final("contained")')] } })}
EOF`);
    const run = await recur(`mkdir -p ../sandbox-work && cd ../sandbox-work && recur run 'try every escape' --cwd . --model 'scripted:${home}/scripts/escape.json'`,
      { cwd: app, env: { CI: 'true' } });
    expect(run.out).toMatch(/recur: exit 0: \S+ completed/);
    const escaper = /session (\S+) started; CI mode/.exec(run.out)![1];
    const events = (await must('recur logs', `recur logs ${escaper} --json`)).split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const outputs = attemptOutputs(events.filter((e) => e.type === 'CellExecuted').map((e) => e.event.outputs as string));
    const failures: string[] = [];
    ESCAPES.forEach(([name, , expected], i) => {
      const out = outputs.get(i) ?? '(no output)';
      if (/ESCAPED/.test(out) || !expected.every((l) => out.includes(l))) failures.push(`${name}:\n${out}`);
    });
    expect(failures).toEqual([]);
  }, 300_000);
});
