/**
 * Where the page's data comes from, chosen once at start: a daemon (live trees), `recur view`
 * over one audit bundle (the same routes, trees that never grow), or the answers an HTML export
 * carries in the page itself (no server at all). Views read through `source()` only, so the same
 * views serve all three.
 */
import { EMBEDDED_BUNDLE_ID, type EmbeddedBundle, type UiInfo } from '../../services/daemon/api-types';
import { RecurError } from '../../errors';
import { blobUrl } from '../model/blob';
import { failure, getJson, getLines, isSignedOut, openEvents } from './api';
import { loginFromFragment } from './login';
import type { FeedDeps } from './tree-feed';

export interface ViewerSource extends FeedDeps {
  /** A blob's first `max` bytes (all of it when null) and its whole size. */
  blob(sha256: string, max: number | null): Promise<{ bytes: Uint8Array; size: number }>;
  /** Whether the page signs in with a link's code and can sign out; a file opened from disk has no one to sign in to. */
  readonly signsIn: boolean;
}

async function fetchBlob(sha256: string, max: number | null): Promise<{ bytes: Uint8Array; size: number }> {
  const res = await fetch(blobUrl(sha256, max), { credentials: 'same-origin' });
  if (!res.ok) throw await failure(res, `blob ${sha256.slice(0, 12)}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { bytes, size: Number(res.headers.get('x-recur-blob-size') ?? bytes.length) };
}

const served = (live: boolean): ViewerSource => ({ getJson, getLines, openEvents, isSignedOut, blob: fetchBlob, live, signsIn: true });

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

let current: ViewerSource = served(true);
let info: Promise<UiInfo | null> = Promise.resolve(null);

export const source = (): ViewerSource => current;

/** `GET /v1/ui/info` as read at start (null when it failed): the links, and the bundle when the page shows one. */
export const sourceInfo = (): Promise<UiInfo | null> => info;

/**
 * Picks the source: the page's embedded bundle when it has one; otherwise it signs in (a link's
 * code) and asks the server whether it serves a bundle, which is then loaded, not followed.
 */
export async function startSource(): Promise<void> {
  const embedded = document.getElementById(EMBEDDED_BUNDLE_ID);
  if (embedded !== null) {
    const data = JSON.parse(embedded.textContent ?? '') as EmbeddedBundle;
    current = embeddedSource(data);
    info = Promise.resolve(data.info);
    return;
  }
  await loginFromFragment().catch(() => undefined);
  info = getJson<UiInfo>('/v1/ui/info').catch(() => null);
  current = served((await info)?.bundle === undefined);
}
