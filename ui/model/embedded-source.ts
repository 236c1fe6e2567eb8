/**
 * The viewer's data source, and the one an HTML export carries in the page itself: kept apart
 * from the served sources (ui/state/source.ts), which need a browser, so it is tested in Node.
 */
import type { EmbeddedBundle } from '../../services/daemon/api-types';
import { RecurError } from '../../errors';
import type { FeedDeps } from '../state/tree-feed';

export interface ViewerSource extends FeedDeps {
  /** A blob's first `max` bytes (all of it when null) and its whole size. */
  blob(sha256: string, max: number | null): Promise<{ bytes: Uint8Array; size: number }>;
  /** Whether the page signs in with a link's code and can sign out; a file opened from disk has no one to sign in to. */
  readonly signsIn: boolean;
}

function base64Bytes(text: string): Uint8Array {
  const raw = atob(text);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** Answers the viewer's reads from an export's embedded bundle, by the same paths the daemon serves them under. */
export function embeddedSource(data: EmbeddedBundle): ViewerSource {
  const tree = `/v1/sessions/${encodeURIComponent(data.rootId)}`;
  const answers = new Map<string, unknown>([
    ['/v1/sessions?limit=500', { sessions: [] }],
    ['/v1/catalog', data.catalog],
    ['/v1/ui/info', data.info],
    [`${tree}/verify`, data.verdict],
  ]);
  const absent = (what: string) => new RecurError(`${what} is not in this file (it holds the tree of ${data.rootId})`);
  return {
    live: false,
    signsIn: false,
    isSignedOut: () => false,
    getJson: async <T>(path: string): Promise<T> => {
      if (!answers.has(path)) throw absent(path);
      return answers.get(path) as T;
    },
    getLines: async (path, onLine) => {
      if (path !== `${tree}/tree`) throw absent(path);
      for (const line of data.tree) onLine(line);
    },
    openEvents: () => ({ close: () => undefined }),
    blob: async (sha256, max) => {
      const text = data.blobs[sha256];
      if (text === undefined) throw absent(`blob ${sha256.slice(0, 12)}`);
      const bytes = base64Bytes(text);
      return { bytes: max === null ? bytes : bytes.subarray(0, max), size: bytes.length };
    },
  };
}

