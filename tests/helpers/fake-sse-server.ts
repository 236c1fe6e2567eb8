import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamFrames } from '../../bench/openai-frames';

export { splitText } from '../../bench/openai-frames';

/**
 * An HTTP server on 127.0.0.1 that answers each POST with the next queued reply and records
 * what it was sent. The OpenAI and Anthropic fakes build their wire formats on top of it.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export type FakeReply = SseReply | { type: 'json'; status: number; body: unknown; headers?: Record<string, string> };

export interface SseReply extends StreamFrames {
  /** Send only this many frames, then hold the connection open silently. */
  stallAfter?: number;
  /** After `stallAfter`, send an SSE comment this often instead of silence (bytes trickle, nothing completes). */
  keepAliveMs?: number;
  /** Write the whole stream in pieces of this many bytes (splits lines and UTF-8 characters). */
  chunkBytes?: number;
}

export interface FakeSseServer {
  url: string;
  requests: RecordedRequest[];
  enqueue(...replies: FakeReply[]): void;
  close(): Promise<void>;
}

export async function startFakeSseServer(): Promise<FakeSseServer> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined });
      const reply = queue.shift() ?? {
        type: 'json',
        status: 418,
        body: { error: { type: 'fake_server', message: `no reply queued for request ${requests.length}` } },
      };
      if (reply.type === 'json') {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(JSON.stringify(reply.body));
      } else {
        void writeSse(res, reply, timers);
      }
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close: async () => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}

async function writeSse(res: ServerResponse, reply: SseReply, timers: Set<NodeJS.Timeout>): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const frames = reply.stallAfter === undefined ? reply.frames : reply.frames.slice(0, reply.stallAfter);
  const bytes = Buffer.from(frames.join(''), 'utf8');
  const size = reply.chunkBytes ?? bytes.length;
  for (let at = 0; at < bytes.length; at += size) {
    res.write(bytes.subarray(at, at + size));
    // A turn of the event loop between pieces, so they leave as separate reads on the client.
    if (reply.chunkBytes !== undefined) await new Promise((next) => setImmediate(next));
  }
  if (reply.stallAfter === undefined) {
    res.end();
    return;
  }
  if (reply.keepAliveMs !== undefined) {
    const timer = setInterval(() => res.write(': keep-alive\n\n'), reply.keepAliveMs);
    timers.add(timer);
    res.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
    });
  }
}


/** `reply` cut off after `afterFrames` frames; with `keepAliveMs`, comments keep trickling so only a total timeout ends it. */
export function stalled(reply: SseReply, afterFrames: number, keepAliveMs?: number): SseReply {
  return { ...reply, stallAfter: afterFrames, keepAliveMs };
}
