import { inlineOrBlob, type BlobStore } from '../../activities/blob-store';
import type { BlobRef } from '../../schemas/generated/events';
import { HttpError } from '../../errors';

/**
 * The edge where a kernel's values enter: a value that may be large (an answer, a message, a
 * task, goal evidence) is put in the blob store whole and reaches the workflow as a preview and
 * its BlobRef, so neither the Temporal history nor an event carries it. A small value (a name, a
 * recipient, a schedule) has a hard limit instead: past it the call is refused in the cell.
 */
export interface BridgeValues {
  offload(text: string, maxChars: number): Promise<{ preview: string; blob: BlobRef | null }>;
  /** The whole value behind a preview. */
  whole(preview: string, blob: BlobRef | null | undefined): Promise<string>;
}

export function bridgeValues(blobs: BlobStore): BridgeValues {
  return {
    offload: (text, maxChars) => inlineOrBlob(blobs, text, maxChars),
    whole: async (preview, blob) => (blob ? (await blobs.get(blob.sha256)).toString('utf8') : preview),
  };
}

/** `value` when within `max` characters; otherwise a 413 the kernel raises as a ValueError naming the limit. */
export function withinLimit<T extends string | null>(what: string, value: T, max: number): T {
  if (value !== null && value.length > max) {
    throw new HttpError(413, `${what} is ${value.length} characters, over the ${max}-character limit`, 'LimitExceededError');
  }
  return value;
}
