import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { configToEnv, parseConfig } from '../../config';
import { StackError } from '../../errors';
import { repoRoot } from '../../services/home/repo-root';
import { checkJava, ensureVenv } from '../../services/devstack/install';
import { kafkaService } from '../../services/devstack/kafka';

const scratch = () => mkdtempSync(join(tmpdir(), 'recur-install-'));

function script(dir: string, name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

describe('set-up failures get a one-line error that says what to do', () => {
  it('names a missing Java and how to provide one', () => {
    const { config } = parseConfig({ RECUR_HOME: scratch(), RECUR_JAVA: '/nonexistent/bin/java' });
    const err = (() => { try { checkJava(config); } catch (e) { return e; } })() as StackError;
    expect(err).toBeInstanceOf(StackError);
    expect(err.message).toBe('java: Java 17+ not found (tried "/nonexistent/bin/java")');
    expect(err.hint).toMatch(/JAVA_HOME or RECUR_JAVA/);
  });

  it('refuses a Java older than 17', () => {
    const java = script(scratch(), 'java', 'echo \'openjdk version "11.0.2" 2019-01-15\' >&2');
    const { config } = parseConfig({ RECUR_HOME: scratch(), RECUR_JAVA: java });
    expect(() => checkJava(config)).toThrow(/needs Java 17\+, ".*" is Java 11/);
  });

  it('accepts the machine\'s Java', () => {
    expect(checkJava(parseConfig({ RECUR_HOME: scratch() }).config)).toBeGreaterThanOrEqual(17);
  });

  it('reports an installed venv whose Python no longer runs as broken, with the repair command', () => {
    const home = scratch();
    const { config } = parseConfig({ RECUR_HOME: home });
    const venv = join(config.toolsDir, 'venv');
    mkdirSync(join(venv, 'bin'), { recursive: true });
    script(join(venv, 'bin'), 'python', 'echo "ModuleNotFoundError: No module named ipykernel" >&2; exit 1');
    const dir = join(repoRoot(), 'services', 'devstack', 'python');
    const digest = createHash('sha256')
      .update(readFileSync(join(dir, 'requirements.txt'))).update(readFileSync(join(dir, 'constraints.txt'))).digest('hex');
    writeFileSync(join(venv, '.recur-installed'), digest);
    expect(() => ensureVenv(config, () => undefined)).toThrow(/venv: Recur's Python venv at .* is broken \(ModuleNotFoundError: No module named ipykernel\)/);
    try { ensureVenv(config, () => undefined); } catch (e) { expect((e as StackError).hint).toBe('run `recur setup --force` to rebuild it'); }
  });
});

describe('Kafka log dir formatting', () => {
  it('accepts a cluster id that starts with "-" (base64url ids can)', () => {
    const home = scratch();
    const { config } = parseConfig({ RECUR_HOME: home, RECUR_TOOLS_DIR: parseConfig({}).config.toolsDir });
    mkdirSync(join(home, 'kafka'), { recursive: true });
    writeFileSync(join(home, 'kafka', 'cluster.id'), '-AbCdEfGhIjKlMnOpQrStUw');
    kafkaService.prepare(config);
    expect(readFileSync(join(home, 'kafka', 'data', 'meta.properties'), 'utf8')).toMatch(/cluster.id=-AbCdEfGhIjKlMnOpQrStUw/);
  });
});

describe('configuration', () => {
  it('collects every bad value instead of stopping at the first', () => {
    const { errors } = parseConfig({ RECUR_HOME: scratch(), RECUR_KAFKA_PORT: 'x', RECUR_MAX_DEPTH: '-1', RECUR_JUPYTER_PORT: '19092' });
    expect(errors).toEqual([
      'RECUR_KAFKA_PORT: expected a port 1-65535, got "x"',
      'RECUR_MAX_DEPTH: expected an integer 0..8, got "-1"',
      'ports.jupyter and ports.kafka are both 19092',
    ]);
  });

  it('reads <home>/config.json under the environment, warning about unknown keys', () => {
    const home = scratch();
    writeFileSync(join(home, 'config.json'), JSON.stringify({ ports: { jupyter: 20001 }, agent: { model: 'openai/gpt-4o', bogus: 1 } }));
    const { config, warnings, errors } = parseConfig({ RECUR_HOME: home, RECUR_JUPYTER_PORT: '20002' });
    expect(errors).toEqual([]);
    expect(config.ports.jupyter).toBe(20002);
    expect(config.agent.model).toBe('openai/gpt-4o');
    expect(warnings).toEqual(['config.json: unknown key agent.bogus ignored']);
  });

  it('reads scripted models from the home\'s scripts/ unless RECUR_SCRIPTED_DIRS or config.json names others', () => {
    const home = scratch();
    expect(parseConfig({ RECUR_HOME: home }).config.agent.scriptedDirs).toEqual([join(home, 'scripts')]);
    const env = { RECUR_HOME: home, RECUR_SCRIPTED_DIRS: ['/srv/a', 'relative/b', ''].join(delimiter) };
    const { config } = parseConfig(env);
    expect(config.agent.scriptedDirs).toEqual(['/srv/a', resolve('relative/b')]);
    expect(parseConfig(configToEnv(config)).config.agent.scriptedDirs).toEqual(config.agent.scriptedDirs);
    writeFileSync(join(home, 'config.json'), JSON.stringify({ agent: { scriptedDirs: ['/srv/c'] } }));
    expect(parseConfig({ RECUR_HOME: home }).config.agent.scriptedDirs).toEqual(['/srv/c']);
    writeFileSync(join(home, 'config.json'), JSON.stringify({ agent: { scriptedDirs: '/srv/c' } }));
    expect(parseConfig({ RECUR_HOME: home }).errors).toEqual([`${join(home, 'config.json')}: agent.scriptedDirs must be an array of strings`]);
  });
});
