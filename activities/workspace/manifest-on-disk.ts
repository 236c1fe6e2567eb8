import { existsSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { manifestOf, type WorkspaceManifest } from './manifest';
import { openShadow, scanTree, shadowDir } from './shadow-repo';

/**
 * The workspace's manifest as it is on disk now, for `recur replay --verify`: scanned on a copy
 * of the shadow index, so the workspace's scan record (what its next logged scan compares
 * against) is left as it was. null when this host has no shadow of it or the workspace is gone.
 */
export async function manifestOnDisk(root: string, workspace: string, maxFileBytes: number): Promise<WorkspaceManifest | null> {
  if (!existsSync(join(shadowDir(root, workspace), 'git', 'HEAD')) || !existsSync(workspace)) return null;
  const s = await openShadow(root, workspace);
  const index = `${s.env.GIT_INDEX_FILE}.verify-${process.pid}`;
  if (existsSync(s.env.GIT_INDEX_FILE!)) await copyFile(s.env.GIT_INDEX_FILE!, index);
  try {
    const { tree, overCap } = await scanTree({ ...s, env: { ...s.env, GIT_INDEX_FILE: index } }, maxFileBytes);
    return manifestOf(tree, overCap);
  } finally {
    await rm(index, { force: true });
  }
}
