import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { RecurError } from '../../errors';
import { BridgeError, toErrorReply } from './bridge-errors';
import { parseRpcRequest } from './parse-rpc-request';
import { readBody } from './read-body';
import { createSessionTokens } from './session-tokens';

/**
 * The loopback endpoint Python in a running cell calls (`POST /rpc`). A reply on the busy
 * kernel shell channel would deadlock; HTTP does not. Each session's kernel holds its own
 * bearer token, so a kernel can act only as its own session. Handlers must never wait for
 * the calling cell to finish: that cell is blocked on their answer.
 */
export interface HostBridge {
  /** `http://127.0.0.1:<port>`; the kernel posts to `${url}/rpc`. */
  readonly url: string;
  /** Mint (or return) the session's token; pass it to the kernel's bootstrap. */
  registerSession(sessionId: string): string;
  /** Refuse the session's token from now on (401). */
  revokeSession(sessionId: string): void;
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
  host?: string;
  /** 0 picks a free port. A fixed port lets kernels reach a restarted worker at the URL they hold. */
  port?: number;
  maxBodyBytes?: number;
  /** Key session tokens derive from; the same secret (and port) lets a restarted worker honour kernels' tokens. Random when absent. */
  secret?: Buffer;
}

/** A fixed port may still be held for a moment by the worker this one replaces. */
const LISTEN_ATTEMPTS = 20;
const LISTEN_RETRY_MS = 500;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startHostBridge(options: HostBridgeOptions = {}): Promise<HostBridge> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) throw new RecurError(`host bridge must listen on loopback, not ${host}`);
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const tokens = createSessionTokens(options.secret);
  const handlers = new Map<string, BridgeHandler>();

  async function serve(req: IncomingMessage, signal: AbortSignal): Promise<unknown> {
    if (req.url !== '/rpc') throw new BridgeError(404, `no route ${req.url}`, 'NotFoundError');
    if (req.method !== 'POST') throw new BridgeError(405, 'use POST /rpc', 'MethodNotAllowedError');
    const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
    if (!auth) throw new BridgeError(401, 'missing bearer token', 'UnauthorizedError');
    const sessionId = tokens.resolve(auth[1]);
    if (sessionId === undefined) throw new BridgeError(401, 'unknown or revoked session token', 'UnauthorizedError');
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      throw new BridgeError(415, 'content-type must be application/json', 'UnsupportedMediaTypeError');
    }
    const call = parseRpcRequest(await readBody(req, maxBodyBytes));
    if (call.session !== undefined && call.session !== sessionId) {
      throw new BridgeError(403, `token does not belong to session ${call.session}`, 'ScopeError');
    }
    const handler = handlers.get(call.op);
    if (!handler) throw new BridgeError(404, `unknown op "${call.op}"`, 'UnknownOpError');
    return handler(sessionId, call.args, { signal, rid: call.rid });
  }

  const server = createServer((req, res) => {
    const aborted = new AbortController();
    res.on('close', () => res.writableFinished || aborted.abort());
    serve(req, aborted.signal)
      .then((result) => send(res, 200, { result: result ?? null }))
      .catch((err: unknown) => {
        const reply = toErrorReply(err);
        send(res, reply.status, reply.body);
      });
  });
  // Longer than the kernel's idle reuse window (10 s), so the host never closes a socket the kernel is about to use.
  server.keepAliveTimeout = 30_000;
  await listen(server, options.port ?? 0, host);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    registerSession: (sessionId) => tokens.register(sessionId),
    revokeSession: (sessionId) => tokens.revoke(sessionId),
    handle(op, handler) {
      if (handlers.has(op)) throw new RecurError(`host bridge: op "${op}" already has a handler`);
      handlers.set(op, handler);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function listen(server: Server, port: number, host: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === 0 || attempt >= LISTEN_ATTEMPTS) {
        throw new RecurError(`host bridge cannot listen on ${host}:${port}: ${(e as Error).message}`, {
          hint: 'another worker of this home may be running, or set RECUR_BRIDGE_PORT to a free port',
        });
      }
      await sleep(LISTEN_RETRY_MS);
    }
  }
}

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
