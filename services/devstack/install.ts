import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { ensureLocalModel } from './local-model';
import { withCallerUmask } from '../home/owner-only';
import { repoRoot } from '../home/repo-root';
import { stackPaths } from '../../config/home-paths';

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

const kafkaDir = () => join(repoRoot(), 'services', 'devstack', 'kafka');

/** `<sha256>  <file>` lines (sha256sum's format), as committed in services/devstack/kafka/jars.sha256. */
export function readJarManifest(file = join(kafkaDir(), 'jars.sha256')): Map<string, string> {
  const pins = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (m) pins.set(m[2], m[1]);
  }
  return pins;
}

/**
 * The broker's classpath is `<lib>/*`, so every jar in it must be one the manifest pins, byte for
 * byte: a substituted download, a jar altered on disk, or an extra jar dropped in is refused.
 */
export function verifyKafkaJars(lib: string, pins: Map<string, string>): void {
  const refuse = (problem: string) => new StackError('kafka', problem,
    `remove ${lib} and run \`recur up\` to download the jars again; if it happens again, the download source is serving different files`);
  const jars = readdirSync(lib).filter((f) => f.endsWith('.jar'));
  for (const jar of jars) {
    const expected = pins.get(jar);
    if (!expected) throw refuse(`${join(lib, jar)} is not in the pinned jar manifest (services/devstack/kafka/jars.sha256); refusing to start the broker with it`);
    const actual = digest(join(lib, jar));
    if (actual !== expected) {
      throw refuse(`${join(lib, jar)} has SHA-256 ${actual}, expected ${expected} (services/devstack/kafka/jars.sha256); refusing to start the broker with it`);
    }
  }
  const missing = [...pins.keys()].filter((jar) => !jars.includes(jar));
  if (missing.length > 0) throw refuse(`${lib} lacks pinned jars: ${missing.join(', ')}`);
}

/**
 * Kafka broker jars, resolved from Maven Central by the pom in services/devstack/kafka and
 * checked against the pinned SHA-256 sums on every call, so a jar changed since install is caught too.
 */
export function ensureKafkaJars(config: RecurConfig, log: Log): void {
  const { kafkaLib } = stackPaths(config);
  const pom = join(kafkaDir(), 'pom.xml');
  const marker = join(kafkaLib, '.recur-installed');
  const want = digest(pom);
  const pins = readJarManifest();
  if (existsSync(marker) && readFileSync(marker, 'utf8') === want) {
    verifyKafkaJars(kafkaLib, pins);
    return;
  }
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
  verifyKafkaJars(kafkaLib, pins);
  writeFileSync(marker, want);
}

export const pythonLock = (): string => join(repoRoot(), 'services', 'devstack', 'python', 'requirements.lock');

/**
 * The pip command that fills the venv: the lock alone, every file checked against its pinned
 * SHA-256, wheels only (building an sdist would fetch build tools no hash covers).
 */
export function pipInstallArgs(lock: string): string[] {
  return ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '--require-hashes', '--only-binary=:all:', '-r', lock];
}

/** Recur's venv: Jupyter server + ipykernel for agent kernels, picklers, the Temporal CLI. */
export function ensureVenv(config: RecurConfig, log: Log, opts: { force?: boolean } = {}): void {
  const { venv, python } = stackPaths(config);
  const lock = pythonLock();
  const dir = join(repoRoot(), 'services', 'devstack', 'python');
  const marker = join(venv, '.recur-installed');
  // Keyed on the lock's inputs, which it is generated from: a venv of the same versions installed
  // before the lock existed is kept, not rebuilt under every home that shares the tools dir.
  const want = digest(join(dir, 'requirements.txt'), join(dir, 'constraints.txt'));
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
      'install Python 3.11 with the venv module (the lock pins its wheels), or set RECUR_PYTHON to one');
  }
  const pip = run(python, pipInstallArgs(lock));
  if (pip.status !== 0) {
    throw new StackError('venv', `pip install failed:\n${tail(pip.stdout + pip.stderr)}`,
      'check that PyPI is reachable, then run `recur setup --force`; a hash mismatch above means a download differs from '
      + 'requirements.lock, which pins the wheels for Linux x86_64 CPython 3.11 (elsewhere, regenerate it with scripts/lock-python.sh)');
  }
  writeFileSync(marker, want);
}

/** Everything the embedded stack needs on disk; fast when already there. */
/**
 * Kernels run in bubblewrap (docs/sandbox.md), and a root-run kernel reaches its workspace
 * through an ACL set with `setfacl` (docs/workspace.md). As root on Debian each is one package
 * away; anywhere else `recur up` refuses with how to get it (services/sandbox/check-sandbox.ts).
 */
export function ensureBubblewrap(config: RecurConfig, log: Log): void {
  if (config.sandbox.mode === 'off' || !canApt()) return;
  const missing = [['bwrap', 'bubblewrap'], ['setfacl', 'acl']].filter(([bin]) => run(bin, ['--version']).error).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  aptInstall(missing, 'for the kernel sandbox', log);
}

/**
 * The viewer's browser tests and bench drive Debian's Chromium (`recur setup --browser`, which
 * `npm test` runs). Only they need it, so `recur up` and plain `recur setup` never install it; a
 * missing one fails those tests with how to get it (tests/helpers/browser.ts).
 */
export function ensureChromium(config: RecurConfig, log: Log): void {
  if (existsSync(config.chromium) || !canApt()) return;
  aptInstall(['chromium'], `for the viewer's browser tests (${config.chromium} is missing)`, log);
}

export const canApt = (): boolean => process.getuid?.() === 0 && !run('apt-get', ['--version']).error;

/** Installs Debian packages, refreshing the package lists only when the first try fails (a fresh image has none). */
export function aptInstall(packages: string[], why: string, log: Log): void {
  log(`installing ${packages.join(' and ')} (apt-get install ${packages.join(' ')}) ${why}…`);
  const install = () => run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { ...process.env, DEBIAN_FRONTEND: 'noninteractive' });
  let r = install();
  if (r.status !== 0) {
    run('apt-get', ['update']);
    r = install();
  }
  if (r.status !== 0) log(`apt-get install ${packages.join(' ')} failed:\n${tail(r.stderr + r.stdout)}`);
}

export function ensureTools(config: RecurConfig, log: Log, opts: { force?: boolean } = {}): void {
  withCallerUmask(() => {
    checkJava(config);
    ensureVenv(config, log, opts);
    ensureKafkaJars(config, log);
    ensureBubblewrap(config, log);
    ensureLocalModel(config, log);
  });
}
