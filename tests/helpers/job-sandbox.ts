import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { loadConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import type { JobLauncherOptions } from '../../activities/jobs/job-launch';
import { repoRoot } from '../../services/home/repo-root';

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `job-${name}-`));

const onPath = (bin: string) => (process.env.PATH ?? '').split(delimiter).some((d) => existsSync(join(d, bin)));
export const canSandbox = onPath('bwrap') && process.getuid?.() === 0;

/** A session's sandbox as the worker lays it out (services/sandbox/kernel-host.ts prepare): its policy and mount points. */
export function sandboxFor(ws: string): JobLauncherOptions {
  const root = tmp('sb');
  const key = createHash('sha256').update('s', 'utf8').digest('hex').slice(0, 32);
  const dir = join(root, key);
  const policy = {
    workspace: ws, group: ws, shared: [], zmq: join(dir, 'zmq'), bridge: join(dir, 'bridge'), spool: join(dir, 'spool'),
    restore: join(dir, 'restore'), skills: join(dir, 'skills'), kernelPackage: join(repoRoot(), 'kernel', 'recur_kernel'),
    limits: { memoryBytes: 4 * 2 ** 30, processes: 1024, openFiles: 4096, fileBytes: 2 ** 34 }, net: 'none',
  };
  for (const d of [policy.bridge, policy.restore, policy.skills]) {
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o755);
  }
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy), { mode: 0o600 });
  return { sandbox: 'on', python: stackPaths(loadConfig()).python, kernelDir: join(repoRoot(), 'kernel'), sandboxRoot: root, keyOf: () => key, workspaceOf: () => ws, judge: () => { throw new Error('no judge runs here'); } };
}

