import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import { repoRoot } from '../../services/home/repo-root';

/** The Python side's own unit tests (kernel/tests), run with the venv that kernels use. */
describe('recur_kernel Python unit tests', () => {
  it('pass under the Recur venv', () => {
    const root = repoRoot();
    const r = spawnSync(stackPaths(loadConfig()).python, ['-m', 'unittest', 'discover', '-s', join(root, 'kernel', 'tests')], {
      cwd: root, encoding: 'utf8', env: { ...process.env, PYTHONPATH: join(root, 'kernel') }, timeout: 120_000,
    });
    const ran = Number(/Ran (\d+) tests?/.exec(r.stderr)?.[1] ?? 0);
    expect(ran).toBeGreaterThan(0);
    expect({ status: r.status, tail: r.stderr.trim().split('\n').slice(-3).join('\n') }).toEqual({ status: 0, tail: expect.stringMatching(/OK/) });
  });
});
