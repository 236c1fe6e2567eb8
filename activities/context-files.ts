import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { BlobStore } from './blob-store';
import { CONTEXT_FILE_NAMES, type ShownContextFile } from './prompt/context-section';
import { openInside } from './workspace/open-inside';

const HASH_CHUNK = 1024 * 1024;

/** The longest prefix of `bytes` that does not end inside a UTF-8 character. */
function utf8Prefix(bytes: Buffer, max: number): Buffer {
  if (bytes.length <= max) return bytes;
  let end = max;
  // Back off continuation bytes (10xxxxxx) to the start of the character the cut falls in.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** One instruction file, or null when the workspace has none that is fit to show (openInside). */
async function readOne(realWorkspace: string, name: string, maxBytes: number, blobs: BlobStore): Promise<ShownContextFile | null> {
  const handle = await openInside(realWorkspace, name);
  if (!handle) return null;
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.alloc(HASH_CHUNK);
    let head = Buffer.alloc(0);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, HASH_CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
      if (head.length <= maxBytes) head = Buffer.concat([head, chunk.subarray(0, Math.min(bytesRead, maxBytes + 1 - head.length))]);
      total += bytesRead;
    }
    const shownBytes = utf8Prefix(head, maxBytes);
    const shown = await blobs.put(shownBytes);
    return { file: { path: name, sha256: hash.digest('hex'), bytes: total, shown }, text: shownBytes.toString('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * The workspace's AGENTS.md and CLAUDE.md as one model call shows them, each cut to `maxBytes`,
 * with the shown bytes stored in the blob store first, so the ModelCalled that logs them never
 * points at a missing blob. A CLAUDE.md with AGENTS.md's content (often a symlink to it) is shown once.
 */
export async function readContextFiles(workspace: string, maxBytes: number, blobs: BlobStore): Promise<ShownContextFile[]> {
  let real: string;
  try {
    real = await fs.realpath(workspace);
  } catch {
    return [];
  }
  const shown: ShownContextFile[] = [];
  for (const name of CONTEXT_FILE_NAMES) {
    const f = await readOne(real, name, maxBytes, blobs);
    if (f && !shown.some((s) => s.file.sha256 === f.file.sha256)) shown.push(f);
  }
  return shown;
}
