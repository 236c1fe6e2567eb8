import { request, type IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One HTTP request with its path and headers exactly as given: fetch would normalise `/ui/../x`
 * and refuses to set Host, which is what the viewer's checks are about.
 */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request({ hostname, port, method, path, headers: { ...length, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export type WebSocketTry = { opened: true; headers: IncomingHttpHeaders } | { opened: false; status: number; headers: IncomingHttpHeaders; text: string };

/** Opens a WebSocket and closes it again: the headers of the 101, or the status, headers and body of the refusal. */
export function tryWebSocket(url: string, headers: Record<string, string>): Promise<WebSocketTry> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    let upgraded: IncomingHttpHeaders = {};
    ws.on('upgrade', (res) => (upgraded = res.headers));
    ws.on('open', () => {
      ws.close();
      resolve({ opened: true, headers: upgraded });
    });
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ opened: false, status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    ws.on('error', (err) => reject(err));
  });
}
