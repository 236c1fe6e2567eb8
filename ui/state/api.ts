/**
 * The page's one way to the daemon: same-origin requests carrying the viewer's cookie (never a
 * token). A 401 from any of them means the cookie is gone or expired: the whole app then shows
 * the signed-out notice, since every later request would fail the same way.
 */
import { RecurError } from '../../errors';
import type { EventSocket, SocketHandlers } from './tree-feed';

let signedOut = false;
const listeners = new Set<() => void>();

export const isSignedOut = (): boolean => signedOut;

/** Calls `listener` once the app is signed out; returns the unsubscribe. */
export function onSignedOut(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function markSignedOut(): void {
  if (signedOut) return;
  signedOut = true;
  for (const l of listeners) l();
}

export async function failure(res: Response, path: string): Promise<RecurError> {
  if (res.status === 401) markSignedOut();
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  return new RecurError(`${path}: ${res.status} ${body?.error?.message ?? res.statusText}`, { retryable: res.status >= 500 });
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/json' }, signal });
  if (!res.ok) throw await failure(res, path);
  return (await res.json()) as T;
}

/**
 * A reply of JSON lines, each handed to `onLine` parsed as soon as it is in, so the page works
 * on the first lines of a large reply while the rest arrives.
 */
export async function getLines(path: string, onLine: (value: unknown) => void, signal?: AbortSignal): Promise<void> {
  const res = await fetch(path, { credentials: 'same-origin', headers: { accept: 'application/x-ndjson' }, signal });
  if (!res.ok || !res.body) throw await failure(res, path);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  // A line spans many reads: its pieces are kept apart and joined once, never searched again.
  let pieces: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    let from = 0;
    for (let nl = value.indexOf('\n'); nl >= 0; nl = value.indexOf('\n', from)) {
      pieces.push(value.slice(from, nl));
      onLine(JSON.parse(pieces.join('')));
      pieces = [];
      from = nl + 1;
    }
    if (from < value.length) pieces.push(value.slice(from));
  }
  if (pieces.join('').trim() !== '') onLine(JSON.parse(pieces.join('')));
}

/** A POST with a JSON body and no reply body (login, logout). */
export async function postJson(path: string, body: unknown): Promise<void> {
  const res = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw await failure(res, path);
}

/** The events WebSocket of a tree, on the page's own host (the cookie goes along; same origin). */
export function openEvents(sessionId: string, after: string, on: SocketHandlers): EventSocket {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${scheme}://${location.host}/v1/sessions/${encodeURIComponent(sessionId)}/events?after=${after}`);
  ws.onmessage = (msg: MessageEvent<string>) => on.message(msg.data);
  ws.onclose = (ev: CloseEvent) => on.closed(ev.code, ev.reason);
  return { close: () => ws.close(1000) };
}
