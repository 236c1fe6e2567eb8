import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../services/home/repo-root';

export interface ThrowawayJupyter {
  baseUrl: string;
  wsUrl: string;
  token: string;
  /** A scratch directory the server and its kernels can write; removed by stop(). */
  dir: string;
  pid: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
    srv.on('error', fail);
  });
}

/**
 * A Jupyter server of its own for a benchmark, on a free port with `recur_kernel` importable,
 * so nothing else (a test run restarting the shared stack) disturbs the measurement. `nodelay`
 * false leaves Nagle on (the stock server), to measure what the recur_jupyter extension saves.
 * `sandbox` starts kernels as the stack's server does, from the policies under `root`, in
 * bubblewrap or (`on: false`) bare.
 */
export async function startThrowawayJupyter(
  python: string,
  opts: { nodelay?: boolean; sandbox?: { root: string; on: boolean } } = {},
): Promise<ThrowawayJupyter> {
  const nodelay = opts.nodelay ?? true;
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'recur-bench-'));
  const args = ['-m', 'jupyter_server', '--no-browser', '--ServerApp.allow_root=True', '--ServerApp.ip=127.0.0.1', `--ServerApp.port=${port}`,
    `--ServerApp.root_dir=${dir}`, '--ServerApp.jpserver_extensions=recur_jupyter=True'];
  if (opts.sandbox) {
    args.push('--MultiKernelManager.kernel_manager_class=recur_jupyter.sandbox.SandboxedKernelManager',
      `--SandboxedKernelManager.sandbox_root=${opts.sandbox.root}`, `--SandboxedKernelManager.sandbox=${opts.sandbox.on ? 'True' : 'False'}`);
  }
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, PYTHONPATH: join(repoRoot(), 'kernel'), JUPYTER_TOKEN: token,
    JUPYTER_CONFIG_DIR: join(dir, 'config'), JUPYTER_RUNTIME_DIR: join(dir, 'runtime'), RECUR_JUPYTER_NODELAY: nodelay ? '1' : '0',
  };
  const child: ChildProcess = spawn(python, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  const baseUrl = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${baseUrl}api/status`, { headers: { authorization: `token ${token}` } }).then((r) => r.ok, () => false);
    if (up) break;
    if (i > 300 || child.exitCode !== null) throw new Error(`jupyter (${python}) did not start:\n${log.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!log.includes(nodelay ? 'TCP_NODELAY on' : 'TCP_NODELAY left off')) throw new Error(`recur_jupyter did not load:\n${log.slice(-2000)}`);
  return {
    baseUrl, wsUrl: `ws://127.0.0.1:${port}/`, token, dir, pid: child.pid!,
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
