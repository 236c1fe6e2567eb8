import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config';
import { StackError } from '../../errors';
import { checkSandbox } from '../../services/sandbox';

/** `recur up` on a host that cannot sandbox kernels: one line naming the fix, unless RECUR_SANDBOX=off. */
describe('checkSandbox', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });
  const config = (env: Record<string, string> = {}) => parseConfig({ RECUR_HOME: '/tmp/recur-check-sandbox', ...env }).config;
  const withBwrap = (script: string | null) => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-bwrap-'));
    if (script !== null) {
      writeFileSync(join(dir, 'bwrap'), `#!/bin/sh\n${script}\n`);
      chmodSync(join(dir, 'bwrap'), 0o755);
    }
    process.env.PATH = dir;
  };

  test('passes when bubblewrap runs the probe', () => {
    withBwrap('exit 0');
    expect(() => checkSandbox(config())).not.toThrow();
  });

  test('without bubblewrap it refuses, saying how to get it or how to run without', () => {
    withBwrap(null);
    expect(() => checkSandbox(config())).toThrow(StackError);
    expect(() => checkSandbox(config())).toThrow(/bubblewrap \(bwrap\) is not installed/);
    try {
      checkSandbox(config());
    } catch (e) {
      expect((e as StackError).hint).toMatch(/apt-get install bubblewrap.*RECUR_SANDBOX=off/);
    }
  });

  test("when the host refuses the namespaces it names bubblewrap's first line and the fix", () => {
    withBwrap('echo "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces" >&2\nexit 1');
    expect(() => checkSandbox(config())).toThrow(/cannot create a kernel sandbox: bwrap: No permissions to creating new namespace/);
  });

  test('RECUR_SANDBOX=off skips the check', () => {
    withBwrap(null);
    expect(() => checkSandbox(config({ RECUR_SANDBOX: 'off' }))).not.toThrow();
  });
});
