import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { join } from 'node:path';
import { BlobStoreError, type BlobStore } from '../blob-store';

/**
 * The kernel's side of the blob store. A sandboxed kernel never sees the store: it writes a
 * snapshot's pickles to its spool (`<spool>/sha256/<2 hex>/<hex>`, kernel/recur_kernel/_blobs.py's
 * layout) and reads a restore's from a directory the worker lays out. The spool is the kernel's
 * to write, so nothing in it is trusted: only regular files are read (never through a link),
 * each must hash to its name, and everything found is removed.
 */
const HEX64 = /^[0-9a-f]{64}$/;

/** Blobs (and their bytes) the store did not hold before, and every blob taken: the store holds each now. */
export async function takeSpool(spool: string, blobs: BlobStore): Promise<{ blobs: number; bytes: number; taken: Set<string> }> {
  const added = { blobs: 0, bytes: 0, taken: new Set<string>() };
  for (const path of await entries(join(spool, 'sha256'), 2)) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (HEX64.test(name) && (await isFile(path))) {
      const data = await readNoFollow(path);
      if (!data || createHash('sha256').update(data).digest('hex') !== name) continue;
      if (!(await blobs.has(name))) {
        await blobs.put(data);
        added.blobs++;
        added.bytes += data.length;
      }
      added.taken.add(name);
    }
  }
  await fs.rm(join(spool, 'sha256'), { recursive: true, force: true });
  return added;
}

/**
 * Copies the blobs a restore reads where the kernel can read them (as its own uid), after
 * clearing the last restore's. One missing or corrupt in the store is left out: the kernel
 * reports that variable failed and restores the rest.
 */
export async function layOutRestore(dir: string, blobs: BlobStore, shas: Iterable<string>): Promise<void> {
  await clearRestore(dir);
  for (const sha of new Set(shas)) {
    const data = await blobs.get(sha).catch((e: unknown) => {
      if (e instanceof BlobStoreError) return undefined;
      throw e;
    });
    if (!data) continue;
    const target = join(dir, 'sha256', sha.slice(0, 2), sha);
    await fs.mkdir(join(dir, 'sha256', sha.slice(0, 2)), { recursive: true, mode: 0o755 });
    await fs.writeFile(target, data, { mode: 0o644 });
    // The worker's umask is owner-only; the kernel reads these as another uid.
    await fs.chmod(target, 0o644);
  }
  await chmodTree(join(dir, 'sha256'));
}

export const clearRestore = (dir: string) => fs.rm(join(dir, 'sha256'), { recursive: true, force: true });

async function chmodTree(dir: string): Promise<void> {
  await fs.chmod(dir, 0o755).catch(() => undefined);
  for (const d of await entries(dir, 1)) await fs.chmod(d, 0o755);
}

/** Paths `depth` levels below `dir`, through real directories only. */
async function entries(dir: string, depth: number): Promise<string[]> {
  let level = [dir];
  for (let i = 0; i < depth; i++) {
    const next: string[] = [];
    for (const d of level) {
      const st = await fs.lstat(d).catch(() => undefined);
      if (!st?.isDirectory()) continue;
      for (const name of await fs.readdir(d)) next.push(join(d, name));
    }
    level = next;
  }
  return level;
}

const isFile = async (path: string) => (await fs.lstat(path).catch(() => undefined))?.isFile() ?? false;

async function readNoFollow(path: string): Promise<Buffer | undefined> {
  const handle = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => undefined);
  if (!handle) return undefined;
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
