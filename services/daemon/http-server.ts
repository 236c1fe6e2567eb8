import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { traceRequest } from '../../observability/http-tracing';
import { parseCursor, type Cursor } from './cursor';
import { toErrorReply } from '../../errors';
import { badRequest, notFound } from './http-error';
import { checkSessionId } from './parse-requests';
import { readJsonBody } from './read-json-body';
import { authenticate } from './request-auth';
import type { ApiReply, ApiRequest } from './route-types';
import { securityHeaderLines, setSecurityHeaders } from './security-headers';
import { isViewerPath, serveViewer, uiApiRoute, type Viewer } from './ui-front';

export interface DaemonServerDeps {
  token: string;
  handle: (req: ApiRequest) => Promise<ApiReply>;
  /** Serves an accepted `GET /v1/sessions/:id/events` WebSocket; resolves when the stream ends. */
  stream: (ws: WebSocket, sessionId: string, cursor: Cursor, options: StreamOptions) => Promise<void>;
  log?: (line: string) => void;
  /** The audit viewer: its bundle, its sign-ins and its links (ui-front.ts). */
  viewer: Viewer;
}

export interface StreamOptions {
  /** `?deltas=1`: model text deltas too (ephemeral frames; existing clients never see them). */
  deltas: boolean;
}

export interface DaemonServer {
  server: Server;
  /**
   * Ends every open event stream (their clients see close code 1001) and resolves once each has
   * let go of its log reader and every request in progress has finished its Temporal call.
   */
  drain(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Path segments of a request URL, each percent-decoded, so `%2F` inside a session id stays in its segment. */
function parseUrl(raw: string | undefined): { segments: string[]; query: URLSearchParams } {
  try {
    const url = new URL(raw ?? '/', 'http://daemon');
    return { segments: url.pathname.split('/').slice(1).map(decodeURIComponent), query: url.searchParams };
  } catch {
    throw badRequest('malformed URL or percent-encoding');
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function sendReply(res: ServerResponse, reply: ApiReply): Promise<void> {
  if (reply.lines) return sendLines(res, reply.status, reply.lines);
  if (!reply.binary) return sendJson(res, reply.status, reply.body);
  if (res.headersSent || res.destroyed) return;
  const { bytes, headers } = reply.binary;
  res.writeHead(reply.status, { ...headers, 'content-type': 'application/octet-stream', 'content-length': bytes.byteLength });
  res.end(bytes);
}

/**
 * Writes a line once the client has taken the one before (the socket drained), so a large tree
 * is never held twice as text and other requests are served between lines. A client that goes
 * away stops the writing.
 */
async function sendLines(res: ServerResponse, status: number, lines: Iterable<string>): Promise<void> {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/x-ndjson' });
  try {
    for (const line of lines) {
      if (res.destroyed) return;
      if (!res.write(`${line}\n`)) await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done).off('close', done);
          resolve();
        };
        res.on('drain', done).on('close', done);
      });
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } catch (err) {
    // The status is out already: a cut connection is how the client learns (the body lacks its end line).
    res.destroy();
    throw err;
  }
  res.end();
}

function refuseUpgrade(socket: Duplex, err: unknown): void {
  const { status, body } = toErrorReply(err);
  const text = JSON.stringify(body);
  const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`, 'content-type: application/json', ...securityHeaderLines(),
    `content-length: ${Buffer.byteLength(text)}`, 'connection: close'];
  socket.end(`${head.join('\r\n')}\r\n\r\n${text}`);
}

/** The path as the request line has it, not decoded or normalised (the viewer's files are named by it). */
const rawPath = (url: string | undefined): string => (url ?? '/').split('?')[0];

/**
 * HTTP + WebSocket front of the daemon: the viewer's files are public, every API request and
 * upgrade carries the bearer token or the viewer's read-only cookie (request-auth.ts).
 */
export function createDaemonServer(deps: DaemonServerDeps): DaemonServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  wss.on('headers', (headers) => headers.push(...securityHeaderLines()));
  /** Streams and requests in progress, so shutdown can wait for them before closing their clients. */
  const pending = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    pending.add(work);
    void work.catch(() => undefined).finally(() => pending.delete(work));
    return work;
  };

  async function serve(req: IncomingMessage): Promise<ApiReply> {
    const via = authenticate(req, deps.token, deps.viewer.auth, false);
    const { segments, query } = parseUrl(req.url);
    const body = req.method === 'POST' ? await readJsonBody(req, MAX_BODY_BYTES) : undefined;
    const request: ApiRequest = { method: req.method ?? 'GET', segments, query, body };
    return uiApiRoute(deps.viewer, request, via) ?? deps.handle(request);
  }

  const server = createServer((req, res) => {
    setSecurityHeaders(res);
    const path = rawPath(req.url);
    const work: Promise<unknown> = isViewerPath(path)
      ? traceRequest(req, () => serveViewer(deps.viewer, req, res, path))
      : traceRequest(req, () => serve(req)).then((reply) => sendReply(res, reply));
    track(work)
      .catch((err: unknown) => {
        const reply = toErrorReply(err);
        if (reply.status >= 500) deps.log?.(`${req.method} ${req.url}: ${reply.body.error.name}: ${reply.body.error.message}`);
        sendJson(res, reply.status, reply.body);
      });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    let sessionId: string;
    let cursor: Cursor;
    let options: StreamOptions;
    try {
      authenticate(req, deps.token, deps.viewer.auth, true);
      const { segments, query } = parseUrl(req.url);
      const [version, collection, id, action, ...rest] = segments;
      if (version !== 'v1' || collection !== 'sessions' || id === undefined || action !== 'events' || rest.length > 0) {
        throw notFound(`no WebSocket route ${req.url}; use /v1/sessions/<id>/events`);
      }
      sessionId = checkSessionId(id);
      const parsed = parseCursor(query.get('after'));
      if (!parsed.ok) throw badRequest(parsed.reason);
      cursor = parsed.cursor;
      options = { deltas: query.get('deltas') === '1' };
    } catch (err) {
      refuseUpgrade(socket, err);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      track(deps.stream(ws, sessionId, cursor, options))
        .catch((err: unknown) => deps.log?.(`event stream of ${sessionId} failed: ${(err as Error).message}`))
        .finally(() => ws.close(1000));
    });
  });

  return {
    server,
    async drain() {
      for (const ws of wss.clients) {
        ws.close(1001, 'daemon shutting down');
        setTimeout(() => ws.terminate(), 1000).unref(); // a client that never answers the close
      }
      await Promise.allSettled(pending);
    },
  };
}
