import { orderChanges } from '../../activities/workspace/sensitive-paths';
import type { WorkspaceFileChange } from '../../schemas';

/** A changed file as the workspace detail lists it, with what marks it as running outside Recur. */
export interface FileRow {
  file: WorkspaceFileChange;
  /** null: an ordinary workspace file. */
  mark: { cls: 'file-git-meta' | 'file-sensitive'; label: string; title: string } | null;
}

/**
 * The scan's files in WorkspaceChanged's order (git metadata, then sensitive paths, then the
 * rest), sorted here too so the page never depends on the writer having done it.
 */
export function workspaceFileRows(files: readonly WorkspaceFileChange[]): FileRow[] {
  return orderChanges(files).map((file) => ({
    file,
    mark: file.kind !== 'file'
      ? { cls: 'file-git-meta', label: 'git metadata', title: "git's own metadata, which git runs or reads later outside the sandbox; Recur did not make this change" }
      : file.sensitive !== null
        ? { cls: 'file-sensitive', label: `sensitive: ${file.sensitive}`, title: `runs later outside Recur (CI, an editor, a package manager, make or git): matched the rule ${file.sensitive}` }
        : null,
  }));
}
