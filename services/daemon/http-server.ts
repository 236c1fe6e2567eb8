import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { traceRequest } from '../../observability/http-tracing';
import { bearerMatches } from './auth-token';
import { parseCursor, type Cursor } from './cursor';
import { DaemonHttpError, badRequest, notFound, toErrorReply } from './http-error';
import { checkSessionId } from './parse-requests';
import { readJsonBody } from './read-json-body';
import type { ApiReply, ApiRequest } from './routes';

export interface DaemonServerDeps {
  token: string;
  handle: (req: ApiRequest) => Promise<ApiReply>;
  /** Serves an accepted `GET /v1/sessions/:id/events` WebSocket; resolves when the stream ends. */
  stream: (ws: WebSocket, sessionId: string, cursor: Cursor, options: StreamOptions) => Promise<void>;
  log?: (line: string) => void;
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

function sendReply(res: ServerResponse, reply: ApiReply): void {
  if (!reply.binary) return sendJson(res, reply.status, reply.body);
  if (res.headersSent || res.destroyed) return;
  const { bytes, headers } = reply.binary;
  res.writeHead(reply.status, { ...headers, 'content-type': 'application/octet-stream', 'content-length': bytes.byteLength });
  res.end(bytes);
}

function refuseUpgrade(socket: Duplex, err: unknown): void {
  const { status, body } = toErrorReply(err);
  const text = JSON.stringify(body);
  socket.end(`HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : 'Error'}\r\ncontent-type: application/json\r\n` +
    `content-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}

const unauthorized = () => new DaemonHttpError(401, 'missing or wrong bearer token (see <RECUR_HOME>/run/daemon.token)', 'UnauthorizedError');

/** HTTP + WebSocket front of the daemon: every request, upgrades included, must carry the bearer token. */
export function createDaemonServer(deps: DaemonServerDeps): DaemonServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  /** Streams and requests in progress, so shutdown can wait for them before closing their clients. */
  const pending = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    pending.add(work);
    void work.catch(() => undefined).finally(() => pending.delete(work));
    return work;
  };

  async function serve(req: IncomingMessage): Promise<ApiReply> {
    if (!bearerMatches(req.headers.authorization, deps.token)) throw unauthorized();
    const { segments, query } = parseUrl(req.url);
    const body = req.method === 'POST' ? await readJsonBody(req, MAX_BODY_BYTES) : undefined;
    return deps.handle({ method: req.method ?? 'GET', segments, query, body });
  }

  const server = createServer((req, res) => {
    track(traceRequest(req, () => serve(req)))
      .then((reply) => sendReply(res, reply))
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
      if (!bearerMatches(req.headers.authorization, deps.token)) throw unauthorized();
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
