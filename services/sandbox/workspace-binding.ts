import { readFileSync, mkdirSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceBinding } from '../../activities/workspace/binding';
import { sessionParent, sessionRoot } from '../../schemas/session-ids';

/** A session's record, beside its sandbox policy; written once by whoever starts the session. */
export const bindingFile = (sessionDir: string): string => join(sessionDir, 'workspace.json');

function read(file: string): WorkspaceBinding | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  return JSON.parse(text) as WorkspaceBinding;
}

export type Workspaces = ReturnType<typeof createWorkspaces>;

/**
 * A session's workspace: its own record, else its nearest ancestor's (children share their
 * parent's workspace unless given a worktree), else the root's directory under the home (a
 * session started without a workspace). `dirOf` maps a session id to its `run/sb/<key>/`.
 */
export function createWorkspaces(home: string, dirOf: (sessionId: string) => string, keyOf: (sessionId: string) => string) {
  const known = new Map<string, WorkspaceBinding | null>();
  const recorded = (sessionId: string): WorkspaceBinding | null => {
    if (!known.has(sessionId)) known.set(sessionId, read(bindingFile(dirOf(sessionId))));
    return known.get(sessionId)!;
  };
  return {
    of(sessionId: string): WorkspaceBinding {
      for (let id: string | null = sessionId; id !== null; id = sessionParent(id)) {
        const b = recorded(id);
        if (b) return b;
      }
      const dir = join(home, 'workspaces', keyOf(sessionRoot(sessionId)));
      return { dir, group: dir, shared: [] };
    },
    /** The session's own record read afresh (a merge in another worker may have moved a worktree's base); null when it has none. */
    own: (sessionId: string): WorkspaceBinding | null => read(bindingFile(dirOf(sessionId))),
    /** Written before the session's workflow starts, so every reader of it sees the same workspace; rewritten by a merge (its base moves). */
    record(sessionId: string, binding: WorkspaceBinding): void {
      const dir = dirOf(sessionId);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const tmp = `${bindingFile(dir)}.tmp`;
      writeFileSync(tmp, JSON.stringify(binding, null, 2), { mode: 0o600 });
      renameSync(tmp, bindingFile(dir));
      known.set(sessionId, binding);
    },
  };
}
