/**
 * Where the page's data comes from, chosen once at start: a daemon (live trees), `recur view`
 * over one audit bundle (the same routes, trees that never grow), or the answers an HTML export
 * carries in the page itself (no server at all). Views read through `source()` only, so the same
 * views serve all three.
 */
import { EMBEDDED_BUNDLE_ID, type EmbeddedBundle, type UiInfo } from '../../services/daemon/api-types';
import { blobUrl } from '../model/blob';
import { failure, getJson, getLines, isSignedOut, openEvents } from './api';
import { loginFromFragment } from './login';
import { embeddedSource, type ViewerSource } from '../model/embedded-source';

async function fetchBlob(sha256: string, max: number | null): Promise<{ bytes: Uint8Array; size: number }> {
  const res = await fetch(blobUrl(sha256, max), { credentials: 'same-origin' });
  if (!res.ok) throw await failure(res, `blob ${sha256.slice(0, 12)}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { bytes, size: Number(res.headers.get('x-recur-blob-size') ?? bytes.length) };
}

const served = (live: boolean): ViewerSource => ({ getJson, getLines, openEvents, isSignedOut, blob: fetchBlob, live, signsIn: true });

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
