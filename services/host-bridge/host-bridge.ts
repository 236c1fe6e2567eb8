import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { HttpError, RecurError, toErrorReply } from '../../errors';
import { parseRpcRequest } from './parse-rpc-request';
import { readBody } from './read-body';
import { createSessionTokens } from './session-tokens';
import { listenOnSocket } from './listen-socket';

/**
 * The endpoint Python in a running cell calls (`POST /rpc`): one Unix socket per session, in a
 * directory only that session's sandbox sees. A reply on the busy kernel shell channel would
 * deadlock; HTTP does not. A call must come on its session's socket and carry its session's
 * bearer token, so a kernel can act only as its own session. Handlers must never wait for the
 * calling cell to finish: that cell is blocked on their answer.
 */
export interface HostBridge {
  /**
   * Listens for the session's kernel at `socketPath` (replacing a stale socket a dead worker
   * left) and returns the session's token for its bootstrap. Idempotent.
   */
  openSession(sessionId: string, socketPath: string): Promise<string>;
  /**
   * Closes the session's socket and leaves a `revoked` mark beside it, which outlives this
   * worker: the kernel's calls fail at once from now on, where a missing socket alone would
   * look like a worker restarting.
   */
  revokeSession(sessionId: string): Promise<void>;
  handle(op: string, handler: BridgeHandler): void;
  close(): Promise<void>;
}

export type BridgeHandler = (sessionId: string, args: Record<string, unknown>, ctx: CallContext) => Promise<unknown>;

export interface CallContext {
  /** Aborted when the kernel drops the request (interrupted cell); long polls should stop. */
  signal: AbortSignal;
  rid?: string;
}

export interface HostBridgeOptions {
  maxBodyBytes?: number;
  /** Key session tokens derive from; the same secret lets a restarted worker honour kernels' tokens. Random when absent. */
  secret?: Buffer;
}

export async function startHostBridge(options: HostBridgeOptions = {}): Promise<HostBridge> {
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const tokens = createSessionTokens(options.secret);
  const handlers = new Map<string, BridgeHandler>();
  const servers = new Map<string, { server: Server; socketPath: string }>();

  async function serve(socketSession: string, req: IncomingMessage, signal: AbortSignal): Promise<unknown> {
    if (req.url !== '/rpc') throw new HttpError(404, `no route ${req.url}`, 'NotFoundError');
    if (req.method !== 'POST') throw new HttpError(405, 'use POST /rpc', 'MethodNotAllowedError');
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    if (!auth) throw new HttpError(401, 'missing bearer token', 'UnauthorizedError');
    const sessionId = tokens.resolve(auth[1]);
    if (sessionId === undefined) throw new HttpError(401, 'unknown or revoked session token', 'UnauthorizedError');
    if (sessionId !== socketSession) throw new HttpError(403, `token does not belong to session ${socketSession}`, 'ScopeError');
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      throw new HttpError(415, 'content-type must be application/json', 'UnsupportedMediaTypeError');
    }
    const call = parseRpcRequest(await readBody(req, maxBodyBytes));
    if (call.session !== undefined && call.session !== sessionId) {
      throw new HttpError(403, `token does not belong to session ${call.session}`, 'ScopeError');
    }
    const handler = handlers.get(call.op);
    if (!handler) throw new HttpError(404, `unknown op "${call.op}"`, 'UnknownOpError');
    return handler(sessionId, call.args, { signal, rid: call.rid });
  }

  function sessionServer(sessionId: string): Server {
    const server = createServer((req, res) => {
      const aborted = new AbortController();
      res.on('close', () => res.writableFinished || aborted.abort());
      serve(sessionId, req, aborted.signal)
        .then((result) => send(res, 200, { result: result ?? null }))
        .catch((err: unknown) => {
          const reply = toErrorReply(err);
          send(res, reply.status, reply.body);
        });
    });
    // Longer than the kernel's idle reuse window (10 s), so the host never closes a socket the kernel is about to use.
    server.keepAliveTimeout = 30_000;
    return server;
  }

  async function stop(sessionId: string): Promise<void> {
    const { server } = servers.get(sessionId) ?? {};
    if (!server) return;
    servers.delete(sessionId);
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  return {
    async openSession(sessionId, socketPath) {
      const token = tokens.register(sessionId);
      if (servers.has(sessionId)) return token;
      const server = sessionServer(sessionId);
      servers.set(sessionId, { server, socketPath });
      try {
        await listenOnSocket(server, socketPath, 'host bridge');
      } catch (e) {
        servers.delete(sessionId);
        throw e;
      }
      rmSync(revokedMark(socketPath), { force: true });
      return token;
    },
    async revokeSession(sessionId) {
      tokens.revoke(sessionId);
      const open = servers.get(sessionId);
      await stop(sessionId);
      if (open) writeFileSync(revokedMark(open.socketPath), '');
    },
    handle(op, handler) {
      if (handlers.has(op)) throw new RecurError(`host bridge: op "${op}" already has a handler`);
      handlers.set(op, handler);
    },
    async close() {
      await Promise.all([...servers.keys()].map(stop));
    },
  };
}

/** Kernel-visible, beside the socket: kernel/recur_kernel/_host.py reads it when the socket is gone. */
const revokedMark = (socketPath: string) => join(dirname(socketPath), 'revoked');

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (err) {
    status = 500;
    text = JSON.stringify(toErrorReply(new Error(`result is not JSON: ${(err as Error).message}`)).body);
  }
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
