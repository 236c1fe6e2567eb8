import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KernelHost, KernelPlace } from '../../activities/kernel/types';
import type { RecurConfig } from '../../config';
import { repoRoot } from '../home/repo-root';
import type { HostBridge } from '../host-bridge';
import type { EgressProxy } from './egress-proxy';
import { sandboxRecord } from './sandbox-record';
import { createWorkspaces, type Workspaces } from './workspace-binding';
import { createWorktrees, type Worktrees } from '../../activities/workspace/worktree';
import type { WorkspaceRecord } from '../../activities/workspace/workspace-record';
import { sessionParent, sessionRoot } from '../../schemas/session-ids';

/** The directory of per-session sandbox policies the Jupyter server reads (kernel/recur_jupyter/sandbox.py). */
export const sandboxRoot = (config: RecurConfig): string => join(config.home, 'run', 'sb');

/** Short (socket paths have a 107-byte limit) and a fixed shape, so the server can check it. */
export const sandboxKey = (sessionId: string): string => createHash('sha256').update(sessionId, 'utf8').digest('hex').slice(0, 32);

/** Every session's workspace on this host (the daemon records a root's, the worker a worktree child's). */
export const sessionWorkspaces = (config: RecurConfig): Workspaces =>
  createWorkspaces(config.home, (sessionId) => join(sandboxRoot(config), sandboxKey(sessionId)), sandboxKey);

/** Sub-agents' worktrees: `worktrees/<root key>/<child key>`, so the root's end finds and removes its tree's. */
function sessionWorktrees(config: RecurConfig, workspaces: Workspaces): Worktrees {
  const treeDir = (rootId: string) => join(config.home, 'worktrees', sandboxKey(rootId));
  return createWorktrees(workspaces, (rootId, childId) => join(treeDir(rootId), sandboxKey(childId)), treeDir);
}

/**
 * Each session's place on this host: `run/sb/<key>/` holds its policy (the worker's, never
 * mounted), and the directories its sandbox mounts: `zmq/` and `spool/` (the kernel's),
 * `bridge/` (its socket), `restore/` and `skills/` (read-only to it). Its workspace is what
 * `workspace.json` there (or an ancestor's) names, else the root's `workspaces/<key>` (docs/workspace.md).
 */
export function createKernelHost(
  config: RecurConfig, bridge?: HostBridge, egress?: EgressProxy, record?: Pick<WorkspaceRecord, 'gitWrite'>,
): KernelHost & { workspaces: Workspaces; worktrees: Worktrees } {
  const root = sandboxRoot(config);
  const dirOf = (sessionId: string) => join(root, sandboxKey(sessionId));
  const workspaces = sessionWorkspaces(config);
  const worktrees = sessionWorktrees(config, workspaces);
  const place = (sessionId: string): KernelPlace => {
    const dir = dirOf(sessionId);
    const name = sandboxKey(sessionId);
    return { name, spool: join(dir, 'spool'), restore: join(dir, 'restore'), skills: join(dir, 'skills'), workspace: workspaces.of(sessionId).dir };
  };
  return {
    place,
    workspaces,
    worktrees,
    async prepare(sessionId) {
      const dir = dirOf(sessionId);
      const p = place(sessionId);
      const { group, shared } = workspaces.of(sessionId);
      const knowledge = workspaces.own(sessionRoot(sessionId))?.knowledge;
      const limits = sandboxRecord(config.sandbox);
      const policy = {
        workspace: p.workspace,
        group,
        shared,
        zmq: join(dir, 'zmq'),
        bridge: join(dir, 'bridge'),
        spool: p.spool,
        restore: p.restore,
        skills: p.skills,
        kernelPackage: join(repoRoot(), 'kernel', 'recur_kernel'),
        limits: { memoryBytes: limits.memoryBytes, processes: limits.processes, openFiles: limits.openFiles, fileBytes: limits.fileBytes },
        net: limits.net,
        ...(knowledge && { papers: { from: knowledge.papers, at: join(p.workspace, 'papers') } }),
      };
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      // Mount points the kernel's uid must traverse; what it may not change is mounted read-only.
      for (const d of [policy.bridge, p.restore, p.skills]) {
        mkdirSync(d, { recursive: true });
        chmodSync(d, 0o755);
      }
      // Rewritten at every bind, while the Jupyter server may be reading it to restart the kernel or
      // open a channel: a rename replaces it whole, so the server never reads a half-written file.
      const tmp = join(dir, `policy.json.${process.pid}.tmp`);
      writeFileSync(tmp, JSON.stringify(policy, null, 2), { mode: 0o600 });
      renameSync(tmp, join(dir, 'policy.json'));
      // Beside the bridge socket, where the kernel's forwarder (recur_kernel/_egress.py) looks for it.
      await egress?.open(sessionId, join(policy.bridge, 'egress'));
      if (!bridge) return { hostUrl: null, token: null };
      const socket = join(policy.bridge, 'sock');
      return { hostUrl: `unix:${socket}`, token: await bridge.openSession(sessionId, socket) };
    },
    async release(sessionId) {
      await egress?.close(sessionId);
      await bridge?.revokeSession(sessionId);
      // The tree is over: its sub-agents' worktrees go (their changes are merged or dropped by now).
      // Pruning them changes the root's repository: Recur's own change, not another's.
      if (sessionParent(sessionId) === null) {
        const remove = () => worktrees.removeTree(sessionId);
        await (record ? record.gitWrite(place(sessionId).workspace, remove) : remove());
      }
    },
  };
}
