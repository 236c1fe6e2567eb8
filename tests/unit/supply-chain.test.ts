import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config';
import { StackError } from '../../errors';
import { stackPaths } from '../../config/home-paths';
import { repoRoot } from '../../services/home/repo-root';
import { ensureKafkaJars, ensureVenv, pythonLock, readJarManifest } from '../../services/devstack/install';

const scratch = () => mkdtempSync(join(tmpdir(), 'recur-supply-'));
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const caught = (f: () => void) => { try { f(); } catch (e) { return e as StackError; } throw new Error('did not throw'); };

/**
 * A tools dir whose Kafka lib links to the shared installed jars and is marked installed for the
 * current pom, so ensureKafkaJars goes straight to the check (no Maven).
 */
function linkedKafkaTools() {
  const shared = stackPaths(parseConfig({}).config).kafkaLib;
  const { config } = parseConfig({ RECUR_HOME: scratch(), RECUR_TOOLS_DIR: scratch() });
  const lib = stackPaths(config).kafkaLib;
  mkdirSync(lib, { recursive: true });
  for (const jar of readdirSync(shared).filter((f) => f.endsWith('.jar'))) symlinkSync(join(shared, jar), join(lib, jar));
  writeFileSync(join(lib, '.recur-installed'), sha256(join(repoRoot(), 'services', 'devstack', 'kafka', 'pom.xml')));
  return { config, lib };
}

describe('Kafka jars are checked against the pinned SHA-256 manifest before the broker starts', () => {
  it('accepts the jars Maven installed, every one of them pinned', () => {
    const { config, lib } = linkedKafkaTools();
    expect(() => ensureKafkaJars(config, () => undefined)).not.toThrow();
    expect(readdirSync(lib).filter((f) => f.endsWith('.jar')).sort()).toEqual([...readJarManifest().keys()].sort());
  });

  it('refuses a tampered jar, naming the file and the expected and actual hashes', () => {
    const { config, lib } = linkedKafkaTools();
    const jar = join(lib, 'kafka-clients-4.4.0.jar');
    const expected = readJarManifest().get('kafka-clients-4.4.0.jar');
    rmSync(jar);
    copyFileSync(join(stackPaths(parseConfig({}).config).kafkaLib, 'kafka-clients-4.4.0.jar'), jar);
    appendFileSync(jar, 'tampered');
    const err = caught(() => ensureKafkaJars(config, () => undefined));
    expect(err).toBeInstanceOf(StackError);
    expect(err.message).toBe(`kafka: ${jar} has SHA-256 ${sha256(jar)}, expected ${expected} (services/devstack/kafka/jars.sha256); refusing to start the broker with it`);
    expect(err.hint).toMatch(new RegExp(`remove ${lib} and run \`recur up\``));
  });

  it('refuses a jar the manifest does not pin (the classpath is lib/*)', () => {
    const { config, lib } = linkedKafkaTools();
    writeFileSync(join(lib, 'extra.jar'), 'PK');
    expect(() => ensureKafkaJars(config, () => undefined)).toThrow(`${join(lib, 'extra.jar')} is not in the pinned jar manifest`);
  });

  it('refuses a lib missing a pinned jar', () => {
    const { config, lib } = linkedKafkaTools();
    rmSync(join(lib, 'kafka-raft-4.4.0.jar'));
    expect(() => ensureKafkaJars(config, () => undefined)).toThrow(`${lib} lacks pinned jars: kafka-raft-4.4.0.jar`);
  });
});

describe('the Python venv installs from a lock with a hash for every package', () => {
  const norm = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');
  const pins = (file: string) => readFileSync(file, 'utf8').split('\n').filter((l) => /^[A-Za-z]/.test(l));

  it('pins every constrained package at its constrained version with a SHA-256, and nothing else', () => {
    const lock = new Map(pins(pythonLock()).map((line) => {
      const m = /^(\S+)==(\S+) --hash=sha256:([0-9a-f]{64})$/.exec(line);
      if (!m) throw new Error(`lock line without a pinned version and hash: ${line}`);
      return [norm(m[1]), m[2]];
    }));
    const constraints = new Map(pins(join(repoRoot(), 'services', 'devstack', 'python', 'constraints.txt')).map((line) => {
      const [name, version] = line.split('==');
      return [norm(name), version];
    }));
    expect(Object.fromEntries(lock)).toEqual(Object.fromEntries(constraints));
  });

  it('runs pip with --require-hashes on the lock alone', () => {
    const dir = scratch();
    const argsFile = join(dir, 'pip-args');
    // Stands in for the interpreter: `-m venv DIR` makes a DIR/bin/python that records its arguments.
    const python = join(dir, 'python3');
    writeFileSync(python, `#!/bin/sh\nmkdir -p "$3/bin"\nprintf '#!/bin/sh\\necho "$@" > ${argsFile}\\n' > "$3/bin/python"\nchmod +x "$3/bin/python"\n`);
    chmodSync(python, 0o755);
    const { config } = parseConfig({ RECUR_HOME: scratch(), RECUR_TOOLS_DIR: scratch(), RECUR_PYTHON: python });
    ensureVenv(config, () => undefined);
    expect(readFileSync(argsFile, 'utf8').trim())
      .toBe(`-m pip install --disable-pip-version-check -q --require-hashes --only-binary=:all: -r ${pythonLock()}`);
  });
});
