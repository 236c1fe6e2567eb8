import WebSocket from 'ws';
import { ExitError } from '../../errors';
import type { LiveFrame, StreamFrame } from '../daemon/api-types';
import type { Cursor } from '../daemon/cursor';
import { DAEMON_NOT_RUNNING, isConnectionRefused, sessionPath, type DaemonClient } from './daemon-client';

/**
 * The daemon's event stream for a session tree, frame by frame, skipping what `cursor` has seen.
 * Returns when `signal` aborts or the daemon closes the stream; throws ExitError when it refuses
 * or cannot be reached. With `deltas`, the model's text deltas come between the events.
 */
export function eventFrames(daemon: DaemonClient, sessionId: string, cursor: Cursor, signal: AbortSignal): AsyncGenerator<StreamFrame>;
export function eventFrames(daemon: DaemonClient, sessionId: string, cursor: Cursor, signal: AbortSignal, o: { deltas: true }): AsyncGenerator<LiveFrame>;
export async function* eventFrames(daemon: DaemonClient, sessionId: string, cursor: Cursor, signal: AbortSignal, o?: { deltas: true }): AsyncGenerator<LiveFrame> {
  const url = `${daemon.url.replace(/^http/, 'ws')}${sessionPath(sessionId, 'events')}?after=${encodeURIComponent(JSON.stringify(cursor))}${o?.deltas ? '&deltas=1' : ''}`;
  const ws = new WebSocket(url, { headers: { authorization: `Bearer ${daemon.token}` } });
  const queue: string[] = [];
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  ws.on('message', (data) => {
    queue.push(data.toString());
    notify();
  });
  ws.on('close', () => {
    ended = true;
    notify();
  });
  ws.on('error', (err) => {
    failure ??= isConnectionRefused(err) ? new ExitError(1, DAEMON_NOT_RUNNING) : err;
    ended = true;
    notify();
  });
  ws.on('unexpected-response', (_req, res) => {
    let body = '';
    res.on('data', (chunk: Buffer) => (body += chunk.toString()));
    res.on('end', () => {
      let message = `the daemon refused the event stream (${res.statusCode})`;
      try {
        message = (JSON.parse(body) as { error: { message: string } }).error.message;
      } catch {
        /* keep the generic message */
      }
      failure ??= new ExitError(1, message);
      ended = true;
      notify();
    });
  });
  const onAbort = (): void => notify();
  signal.addEventListener('abort', onAbort);
  try {
    for (;;) {
      if (signal.aborted) return; // frames still queued stay unread, so the cursor does not pass them
      const text = queue.shift();
      if (text !== undefined) {
        yield JSON.parse(text) as LiveFrame;
        continue;
      }
      if (failure) throw failure;
      if (ended) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else if (ws.readyState === WebSocket.OPEN) ws.close(1000);
  }
}
