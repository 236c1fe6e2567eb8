/**
 * Which directory a session works in (docs/workspace.md). Plain data shared by the daemon, the
 * worker's host and the worktree activities; where it is recorded is services/sandbox's business.
 */
export interface WorkspaceBinding {
  /** The workspace: absolute, symlinks resolved. The kernel's working directory and its read-write mount. */
  dir: string;
  /** The tree's own workspace: kernels of every session bound under it share a group with access to it. */
  group: string;
  /** Further read-write mounts at their host paths: a worktree's repository (its git objects and refs). */
  shared: string[];
  /** Set for a sub-agent's own git worktree: where its net change is merged and what it is measured from. */
  worktree?: WorktreeOrigin;
  /** A research tree's knowledge tier; set on its root's record only, and read from there for every session of the tree. */
  knowledge?: KnowledgeMounts;
}

/** What a research tier mounts (docs/research-loop.md): the task's paper archive, or nothing at all. */
export interface KnowledgeMounts {
  tier: string;
  /** The host's paper archive, mounted read-only over each kernel's `<workspace>/papers`; null hides that directory. */
  papers: string | null;
}

export interface WorktreeOrigin {
  /** The parent's workspace, which `h.merge()` changes. */
  parent: string;
  /** The commit (of the parent's working tree when the worktree was made, or at the last merge) the child's change is measured from. */
  base: string;
}
