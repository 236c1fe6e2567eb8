import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostBridge } from '../../services/host-bridge';

/** A socket path in a directory of its own, as services/sandbox lays them out. */
export const socketPath = (): string => join(mkdtempSync(join(tmpdir(), 'recur-bridge-')), 'sock');

/** Opens the session on a fresh socket: its token, and a client that POSTs over that socket. */
export async function openOn(bridge: HostBridge, sessionId: string) {
  const socket = socketPath();
  const token = await bridge.openSession(sessionId, socket);
  return { socket, token, request: (opts: SocketRequest) => socketRequest(socket, opts) };
}

export interface SocketRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** Written in these chunks (a chunked body) when an array. */
  body?: string | string[];
}

export interface SocketReply {
  status: number;
  body: { result?: unknown; error?: { name: string; message: string } };
}

export function socketRequest(socket: string, opts: SocketRequest): Promise<SocketReply> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socket, path: opts.path ?? '/rpc', method: opts.method ?? 'POST', headers: opts.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    for (const chunk of Array.isArray(opts.body) ? opts.body : opts.body !== undefined ? [opts.body] : []) req.write(chunk);
    req.end();
  });
}
