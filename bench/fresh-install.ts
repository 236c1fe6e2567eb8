import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../services/home/repo-root';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { compare } from './report';
import { runProcess } from './run-process';

const ANSWER = 'first answer';
const LONG = 20 * 60_000;

/**
 * A new user's path to a first answer, two ways, each on an empty npm cache, an empty home (so
 * the stack's tools install from the registries) and no pip cache: `npm install -g` of the
 * packed tarball, then `recur up` and a session; against a clone's `npm ci` (which builds), then
 * `recur up` and the same session. Packing and cloning are not timed: they stand for the
 * registry's tarball and the git host's clone.
 */
async function firstAnswer(ctx: BenchContext, scratch: string, how: 'package' | 'clone', source: string): Promise<{ ms: number; phases: Record<string, number> }> {
  const dir = mkdtempSync(join(scratch, `${how}-`));
  const home = join(dir, 'home');
  // Beside the bench stack, on ports of its own.
  const port = (p: number) => String(p + 300);
  const env: NodeJS.ProcessEnv = {
    ...process.env, RECUR_HOME: home, PIP_NO_CACHE_DIR: '1', npm_config_cache: join(dir, 'npm-cache'), CI: 'true',
    RECUR_KAFKA_PORT: port(ctx.config.ports.kafka), RECUR_KAFKA_CONTROLLER_PORT: port(ctx.config.ports.kafkaController),
    RECUR_TEMPORAL_PORT: port(ctx.config.ports.temporal), RECUR_TEMPORAL_HTTP_PORT: port(ctx.config.ports.temporalHttp),
    RECUR_TEMPORAL_METRICS_PORT: port(ctx.config.ports.temporalMetrics), RECUR_JUPYTER_PORT: port(ctx.config.ports.jupyter),
    RECUR_DAEMON_PORT: port(ctx.config.ports.daemon),
  };
  const work = join(dir, 'work');
  mkdirSync(work);
  let recur: string;
  const phases: Record<string, number> = {};
  const timed = async (phase: string, f: () => Promise<unknown>) => {
    const t0 = Date.now();
    await f();
    phases[phase] = Date.now() - t0;
  };
  if (how === 'package') {
    const prefix = join(dir, 'prefix');
    await timed('install', () => runProcess('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', source], { env, timeoutMs: LONG }));
    recur = join(prefix, 'bin', 'recur');
  } else {
    const clone = join(dir, 'clone');
    await runProcess('git', ['clone', '-q', source, clone], { timeoutMs: LONG });
    await timed('install', () => runProcess('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: clone, env, timeoutMs: LONG }));
    recur = join(clone, 'bin', 'recur');
  }
  try {
    await timed('up', () => runProcess(recur, ['up'], { cwd: work, env, timeoutMs: LONG }));
    mkdirSync(join(home, 'scripts'), { recursive: true });
    const script = join(home, 'scripts', 'first.json');
    writeFileSync(script, JSON.stringify({ agents: { root: ['```python\nprint(6 * 7)\n```', ANSWER] } }));
    await timed('session', async () => {
      const { stdout } = await runProcess(recur, ['run', 'say something', '--cwd', '.', '--model', `scripted:${script}`], { cwd: work, env, timeoutMs: LONG });
      if (!stdout.includes(ANSWER)) throw new Error(`fresh-install (${how}): no answer in:\n${stdout.slice(-1500)}`);
    });
  } finally {
    await runProcess(recur, ['down'], { cwd: work, env, timeoutMs: LONG }).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  ctx.log(`fresh-install: ${how}: ${Object.entries(phases).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')}`);
  return { ms: Object.values(phases).reduce((a, b) => a + b, 0), phases };
}

/** `npm pack` of a copy of the checkout (packing builds into dist/, which the bench itself runs from). */
async function pack(scratch: string): Promise<string> {
  const src = join(scratch, 'src');
  mkdirSync(src);
  await runProcess('bash', ['-c', `tar -C '${repoRoot()}' --exclude=./node_modules --exclude=./dist --exclude=./.recur --exclude=./reports --exclude=./.git -cf - . | tar -C '${src}' -xf -`]);
  symlinkSync(join(repoRoot(), 'node_modules'), join(src, 'node_modules'));
  const { stdout } = await runProcess('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: src, timeoutMs: LONG });
  const tarball = join(scratch, stdout.trim().split('\n').pop()!);
  chmodSync(tarball, 0o644);
  return tarball;
}

export const freshInstall: Benchmark = {
  name: 'fresh-install',
  async run(ctx) {
    const rounds = size(ctx, 2, 1);
    const scratch = mkdtempSync(join(tmpdir(), 'recur-fresh-install-'));
    try {
      const tarball = await pack(scratch);
      const pkg: number[] = [];
      const clone: number[] = [];
      const phases: Record<string, Record<string, number>[]> = { package: [], clone: [] };
      // Alternating, so neither path always runs on a warmer machine.
      for (let i = 0; i < rounds; i++) {
        const order: ('package' | 'clone')[] = i % 2 === 0 ? ['package', 'clone'] : ['clone', 'package'];
        for (const how of order) {
          const r = await firstAnswer(ctx, scratch, how, how === 'package' ? tarball : repoRoot());
          (how === 'package' ? pkg : clone).push(r.ms);
          phases[how].push(r.phases);
        }
      }
      return [compare({
        name: 'fresh-install/first-answer', title: 'A new user to a first answer: the tarball installed with npm install -g, against a clone with npm ci', unit: 'ms', better: 'lower',
        subject: { label: 'npm install -g recur-*.tgz, recur up, a session', samples: pkg },
        baseline: { label: 'npm ci in a clone, recur up, a session', samples: clone },
        limits: 'empty npm cache, home and pip cache each time; registry downloads dominate, so the network of the run moves both; the clone is of the last commit',
        details: { rounds, phases },
      })];
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  },
};
