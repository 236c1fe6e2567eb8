import type { RecurEventInput } from '../../schemas/generated/events';

type WorkspaceChanged = Extract<RecurEventInput, { type: 'WorkspaceChanged' }>;

/** What a logged scan changed that runs outside Recur (docs/sandbox.md), as an operator reads it: `path (why)`. */
export function outsideChanges(e: WorkspaceChanged | null): string[] {
  return (e?.files ?? [])
    .filter((f) => f.kind === 'git-meta' || f.sensitive)
    .map((f) => `${f.path} ${f.change} (${f.kind === 'git-meta' ? 'git metadata' : f.sensitive})`);
}
