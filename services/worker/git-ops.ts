import type { Client } from '@temporalio/client';
import { ScopeError } from '../../errors';
import { createGitWrites, MAX_COMMIT_MESSAGE, type GitWrite } from '../../activities/workspace/git-write';
import { recordGitUpdate } from '../../workflows/messages';
import type { HostBridge } from '../host-bridge';
import { retryableWhenTransient } from './bridge-ops';

/** GitOperation's item limit (schemas/field-limits.ts); the kernel still gets every path. */
const MAX_LOGGED_FILES = 200;

/** A path the agent names for git.commit(paths=…): relative, inside the workspace. */
function relativePath(p: unknown): string {
  if (typeof p !== 'string' || p === '' || p.startsWith('/') || p.split('/').includes('..') || p.startsWith('-')) {
    throw new ScopeError(`git.commit(paths=...): ${JSON.stringify(p)} is not a path inside the workspace`);
  }
  return p;
}

/**
 * `git.commit` and `git.branch` from a kernel: the worker makes the write in the session's own
 * workspace (the bridge maps the token to the session), then its workflow logs it as GitOperation.
 * A repeated call (same rid) logs once; a commit repeated after it went in finds nothing to commit.
 * `absorb` tells the workspace scan that what the write changed under `.git` was Recur's.
 */
export function registerGitOps(host: HostBridge, client: Client, deps: { workspaceOf(sessionId: string): string; absorb(workspace: string, write: () => Promise<GitWrite>): Promise<GitWrite> }): void {
  const writes = createGitWrites();
  const logged = async (sessionId: string, rid: string | undefined, w: GitWrite) => {
    await client.workflow.getHandle(sessionId).executeUpdate(recordGitUpdate, {
      args: [{ ...w, files: w.files.slice(0, MAX_LOGGED_FILES), filesTotal: w.files.length }],
      ...(rid ? { updateId: `git-${rid}` } : {}),
    });
    return { changed: w.changed, branch: w.branch, commit: w.commit, files: w.files };
  };

  host.handle('git.commit', retryableWhenTransient(async (sessionId, args, { rid }) => {
    const message = args.message;
    if (typeof message !== 'string' || message.trim() === '') throw new ScopeError('git.commit(message): the message must be a non-empty string');
    if (message.length > MAX_COMMIT_MESSAGE) throw new ScopeError(`git.commit(message): at most ${MAX_COMMIT_MESSAGE} characters`);
    const paths = args.paths === undefined || args.paths === null ? null : Array.isArray(args.paths) ? args.paths.map(relativePath) : [relativePath(args.paths)];
    const workspace = deps.workspaceOf(sessionId);
    return logged(sessionId, rid, await deps.absorb(workspace, () => writes.commit({ workspace, sessionId, message, paths })));
  }));

  host.handle('git.branch', retryableWhenTransient(async (sessionId, args, { rid }) => {
    if (typeof args.name !== 'string') throw new ScopeError('git.branch(name): the name must be a string');
    const name = args.name;
    const workspace = deps.workspaceOf(sessionId);
    return logged(sessionId, rid, await deps.absorb(workspace, () => writes.branch({ workspace, name, checkout: args.checkout !== false })));
  }));
}
