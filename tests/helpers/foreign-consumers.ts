import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { kafkaBrokers, kafkaConnection } from '../../config/connections';
import { repoRoot } from '../../services/home/repo-root';

const EXAMPLES = join(repoRoot(), 'examples', 'consumers');

export interface Exit { code: number | null; stdout: string; stderr: string }

/** A consumer from examples/consumers, built and ready: `read` runs it on one tree of one topic. */
export interface ForeignConsumer {
  name: string;
  read(topic: string, root: string): Promise<Exit>;
}

const tail = (text: string) => text.trim().split('\n').slice(-20).join('\n');

/** Runs a command to its end; one that cannot start is an error naming it and how to get it. */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; missing?: string } = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new Error(`\`${[cmd, ...args].join(' ')}\` could not start (${e.message})${opts.missing ? `: ${opts.missing}` : ''}`)));
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** A set-up step: it fails the test, naming the command and what it printed, never skips it. */
async function setUp(cmd: string, args: string[], opts: { cwd?: string; missing?: string; hint?: string } = {}): Promise<void> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) {
    throw new Error(`\`${[cmd, ...args].join(' ')}\`${opts.cwd ? ` (in ${opts.cwd})` : ''} exited ${r.code}`
      + `${opts.hint ? ` (${opts.hint})` : ''}:\n${tail(r.stdout + r.stderr)}`);
  }
}

/**
 * A venv with the Python consumer's pinned requirements (PyPI), made once per version of
 * requirements.txt under the tools dir, which checkouts share: it is filled beside its place
 * and renamed into it, so a venv that is there is whole.
 */
async function pythonVenv(config: RecurConfig): Promise<string> {
  const requirements = join(EXAMPLES, 'python', 'requirements.txt');
  const digest = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 16);
  const venv = join(config.toolsDir, `consumer-python-${digest}`);
  const python = join(venv, 'bin', 'python');
  if (existsSync(python)) return python;
  const filling = `${venv}.${process.pid}.tmp`;
  rmSync(filling, { recursive: true, force: true });
  try {
    await setUp(config.python, ['-m', 'venv', filling], { missing: 'install Python 3.11 with its venv module, or set RECUR_PYTHON' });
    await setUp(join(filling, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', '--only-binary=:all:', '-r', requirements],
      { hint: 'check that PyPI is reachable' });
    try {
      renameSync(filling, venv);
    } catch (e) {
      if (!existsSync(python)) throw e; // else another checkout filled it first
    }
  } finally {
    rmSync(filling, { recursive: true, force: true });
  }
  return python;
}

/**
 * The Java consumer's jar and its dependencies in target/lib, from Maven Central (cached in
 * ~/.m2); -C refuses a download whose checksum does not match the one Central serves.
 */
async function javaJar(): Promise<string> {
  const dir = join(EXAMPLES, 'java');
  await setUp('mvn', ['-B', '-q', '-C', 'package'], {
    cwd: dir, missing: 'install Maven (apt-get install maven)', hint: 'check that Maven Central is reachable',
  });
  return join(dir, 'target', 'recur-read-events.jar');
}

/** Both example consumers, set up side by side, reading as the stack's reader principal. */
export async function foreignConsumers(config: RecurConfig): Promise<ForeignConsumer[]> {
  const { username, password } = kafkaConnection(config, 'reader').sasl as { username: string; password: string };
  const env = { ...process.env, KAFKA_BROKERS: kafkaBrokers(config).join(','), KAFKA_USERNAME: username, KAFKA_PASSWORD: password };
  const [python, jar] = await Promise.all([pythonVenv(config), javaJar()]);
  return [
    { name: 'python', read: (topic, root) => run(python, [join(EXAMPLES, 'python', 'read_events.py'), '--topic', topic, '--root', root], { env }) },
    { name: 'java', read: (topic, root) => run(config.java, ['-jar', jar, '--topic', topic, '--root', root], { env }) },
  ];
}
