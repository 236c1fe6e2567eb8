import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { stackPaths } from './paths';
import { repoRoot } from './repo-root';

type Log = (line: string) => void;

const MIN_JAVA = 17;
const VENV_IMPORTS = 'import jupyter_server, ipykernel, dill, cloudpickle';

function digest(...files: string[]): string {
  const h = createHash('sha256');
  for (const f of files) h.update(readFileSync(f));
  return h.digest('hex');
}

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv) {
  return spawnSync(cmd, args, { encoding: 'utf8', env: env ?? process.env, maxBuffer: 64 * 1024 * 1024 });
}

function tail(text: string, lines = 15): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

export function checkJava(config: RecurConfig): number {
  const r = run(config.java, ['-version']);
  if (r.error || r.status !== 0) {
    throw new StackError('java', `Java ${MIN_JAVA}+ not found (tried "${config.java}")`,
      'install a JDK (apt-get install openjdk-17-jre-headless) or set JAVA_HOME or RECUR_JAVA');
  }
  const m = /version "(\d+)(?:\.(\d+))?/.exec(r.stderr + r.stdout);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : 0;
  if (major < MIN_JAVA) {
    throw new StackError('java', `Kafka 4 needs Java ${MIN_JAVA}+, "${config.java}" is Java ${major || '?'}`,
      'set JAVA_HOME or RECUR_JAVA to a JDK 17+');
  }
  return major;
}

/** Kafka broker jars, resolved from Maven Central by the pom in services/devstack/kafka. */
export function ensureKafkaJars(config: RecurConfig, log: Log): void {
  const { kafkaLib } = stackPaths(config);
  const pom = join(repoRoot(), 'services', 'devstack', 'kafka', 'pom.xml');
  const marker = join(kafkaLib, '.recur-installed');
  const want = digest(pom);
  if (existsSync(marker) && readFileSync(marker, 'utf8') === want) return;
  log(`installing Kafka broker jars into ${kafkaLib} (Maven Central)…`);
  rmSync(kafkaLib, { recursive: true, force: true });
  mkdirSync(kafkaLib, { recursive: true });
  const r = run('mvn', ['-B', '-q', '-f', pom, 'dependency:copy-dependencies',
    `-DoutputDirectory=${kafkaLib}`, '-DincludeScope=runtime']);
  if (r.error) {
    throw new StackError('kafka', 'Maven (mvn) not found; it fetches the Kafka jars',
      'install Maven (apt-get install maven) and run the command again');
  }
  if (r.status !== 0) {
    throw new StackError('kafka', `mvn could not resolve the Kafka jars:\n${tail(r.stdout + r.stderr)}`,
      'check that Maven Central is reachable, then run the command again');
  }
  writeFileSync(marker, want);
}

/** Recur's venv: Jupyter server + ipykernel for agent kernels, picklers, the Temporal CLI. */
export function ensureVenv(config: RecurConfig, log: Log, opts: { force?: boolean } = {}): void {
  const { venv, python } = stackPaths(config);
  const dir = join(repoRoot(), 'services', 'devstack', 'python');
  const reqs = join(dir, 'requirements.txt');
  const constraints = join(dir, 'constraints.txt');
  const marker = join(venv, '.recur-installed');
  const want = digest(reqs, constraints);
  const installed = existsSync(marker) && readFileSync(marker, 'utf8') === want;

  if (installed && !opts.force) {
    const check = run(python, ['-c', VENV_IMPORTS]);
    if (check.status === 0) return;
    const why = check.error ? `${python} cannot run` : tail(check.stderr, 1);
    throw new StackError('venv', `Recur's Python venv at ${venv} is broken (${why})`,
      'run `recur setup --force` to rebuild it');
  }
  log(`creating Recur's Python venv at ${venv} (PyPI)…`);
  rmSync(venv, { recursive: true, force: true });
  const mk = run(config.python, ['-m', 'venv', venv]);
  if (mk.error || mk.status !== 0) {
    throw new StackError('venv', `could not create a venv with "${config.python}": ${tail(mk.stderr || String(mk.error), 2)}`,
      'install Python 3.10+ with the venv module, or set RECUR_PYTHON to one');
  }
  const pip = run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '-r', reqs, '-c', constraints]);
  if (pip.status !== 0) {
    throw new StackError('venv', `pip install failed:\n${tail(pip.stdout + pip.stderr)}`,
      'check that PyPI is reachable, then run `recur setup --force`');
  }
  writeFileSync(marker, want);
}

/** Everything the embedded stack needs on disk; fast when already there. */
export function ensureTools(config: RecurConfig, log: Log, opts: { force?: boolean } = {}): void {
  checkJava(config);
  ensureVenv(config, log, opts);
  ensureKafkaJars(config, log);
}
