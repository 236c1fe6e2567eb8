import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { py, SessionHarness } from '../helpers/session-harness';
import { runOnStackWorker } from '../helpers/stack-session';

/** Every path under `root` (itself included) with its permission bits; symlinks carry none of their own. */
function walk(root: string, skip: string): Array<{ path: string; mode: number; dir: boolean }> {
  const out: Array<{ path: string; mode: number; dir: boolean }> = [];
  const visit = (path: string) => {
    if (path === skip) return;
    let st;
    try {
      st = lstatSync(path);
    } catch (e) {
      // Kafka and SQLite replace their temporary files while the walk runs.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    if (st.isSymbolicLink()) return;
    out.push({ path, mode: st.mode & 0o777, dir: st.isDirectory() });
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return out;
}

describe('everything under the Recur home is owner-only', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());

  it('after a session on the stack worker (blobs, a snapshot, a skill, logs), no file or directory is group- or other-accessible', async () => {
    const skill = `owner_only_${randomBytes(3).toString('hex')}`;
    const run = await runOnStackWorker(h, {
      root: [
        py(`harness.skills.create("${skill}", "def add(a, b):\\n    return a + b\\n", "adds two numbers")`),
        py(`import ${skill}\nbig = "x" * 20000\nprint(big)`),
        py(`print(${skill}.add(2, 3))`),
        'done',
      ],
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    expect(run.of('KernelSnapshotted')).not.toHaveLength(0);

    const home = h.config.home;
    const entries = walk(home, h.config.toolsDir);
    const seen = entries.map((e) => relative(home, e.path));
    // The walk covers what the session and the stack wrote, so an empty home cannot pass.
    const expected = ['blobs/sha256/', 'run/sb/', 'workspaces/', 'kafka/data/', 'temporal/dev.db', 'run/jupyter-runtime/', 'run/bridge.secret',
      'run/daemon.token', 'run/kafka-credentials.json', 'kafka/server.properties', 'keys/signing.pem', 'keys/public/', 'logs/worker.log', 'jupyter/config/jupyter_server_config.json', 'telemetry/'];
    expect(expected.filter((part) => !seen.some((p) => p.startsWith(part)))).toEqual([]);
    // A kernel runs as a uid of its own and reaches its sandbox's mounts directly (docs/sandbox.md):
    // those are opened to it on purpose, below directories that stay owner-only.
    const opened = /^(run\/sb\/[0-9a-f]{32}\/(bridge|restore|skills|zmq|spool)(\/|$)|workspaces\/[0-9a-f]{32}(\/|$))/;
    const parents = entries.filter((e) => /^(run\/sb|run\/sb\/[0-9a-f]{32}|workspaces)$/.test(relative(home, e.path)));
    expect(parents.length).toBeGreaterThanOrEqual(3);
    expect(parents.filter((e) => (e.mode & 0o077) !== 0).map((e) => relative(home, e.path))).toEqual([]);
    const offenders = entries
      .filter((e) => (e.mode & 0o077) !== 0 && !opened.test(relative(home, e.path)))
      .map((e) => `${e.mode.toString(8).padStart(4, '0')} ${e.dir ? 'dir ' : 'file'} ${relative(home, e.path) || '.'}`);
    expect(offenders).toEqual([]);
  });
});
