import { constants, promises as fs } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

function inside(file: string, dir: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/**
 * A regular file of an agent's workspace opened for reading, or null when there is none fit to
 * read. The agent controls the workspace, so the file is judged by what was opened, never by its
 * name: the open does not block (a FIFO), the opened file must be regular and, symlinks resolved,
 * inside `realWorkspace` (a link to the Recur home or a secret is not read). The caller closes it.
 */
export async function openInside(realWorkspace: string, name: string): Promise<fs.FileHandle | null> {
  let handle;
  try {
    handle = await fs.open(join(realWorkspace, name), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  // Where the opened file really is; without /proc it cannot be told, so it is not read.
  const opened = (await handle.stat()).isFile() ? await fs.readlink(`/proc/self/fd/${handle.fd}`).catch(() => null) : null;
  if (opened === null || !inside(opened, realWorkspace)) {
    await handle.close();
    return null;
  }
  return handle;
}
