import { lookup } from 'node:dns/promises';
import { BlockList, connect, createServer, isIP, type Server, type Socket } from 'node:net';
import { netAllows, parseNetPolicy, type NetPolicy } from '../../config';
import { listenOnSocket } from '../host-bridge/listen-socket';
import type { ConnectionRecord } from '../../workflows/network-handlers';

/**
 * The only way out of a kernel's sandbox: an HTTP proxy (CONNECT for TLS and any TCP, and plain
 * `http://` requests) on a Unix socket beside the session's bridge socket, reached from inside
 * through the kernel's forwarder (kernel/recur_kernel/_egress.py). Each connection is decided by
 * the session's network policy, or an operator where the policy does not cover it, and logged
 * (NetworkConnection) before a byte goes through. Loopback, private and link-local addresses are
 * refused unless the policy names them: the stack's own services live there.
 */
export interface EgressProxy {
  open(sessionId: string, socketPath: string): Promise<void>;
  close(sessionId: string): Promise<void>;
  closeAll(): Promise<void>;
}

export interface EgressDeps {
  /** The session's network policy text, as its SessionStarted recorded it. */
  policyOf(sessionId: string): Promise<string>;
  /**
   * The approval policy's answer for a destination the network policy does not cover: allowed
   * (it needs no yes), or an operator's, waited for (the approval gate); refused outright.
   */
  approve(sessionId: string, detail: string, signal: AbortSignal): Promise<{ decision: ConnectionRecord['decision']; approvalId: string | null; reason: string }>;
  record(sessionId: string, c: ConnectionRecord): Promise<void>;
  /** Addresses only a policy naming them reaches; loopback, private, link-local and the like by default. */
  isLocal?(address: string): boolean;
}

const MAX_HEAD_BYTES = 16 * 1024;
const CONNECT_TIMEOUT_MS = 15_000;

const LOCAL = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.168.0.0', 16], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) LOCAL.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96]] as const) LOCAL.addSubnet(net, bits, 'ipv6');

/** Where a request goes, from its head: `CONNECT host:port` or an absolute `http://` URL. */
export function parseTarget(head: string): { host: string; port: number; tunnel: boolean; rest: string } | { error: string } {
  const end = head.indexOf('\r\n');
  const [method, target, version] = (end < 0 ? head : head.slice(0, end)).split(' ');
  if (!method || !target || !/^HTTP\/1\.[01]$/.test(version ?? '')) return { error: 'not an HTTP/1.x proxy request' };
  if (method === 'CONNECT') {
    const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(target);
    if (!m) return { error: `CONNECT needs host:port, got ${target}` };
    return { host: m[1].toLowerCase(), port: Number(m[2]), tunnel: true, rest: '' };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { error: `a proxy request needs an absolute http:// URL, got ${target}` };
  }
  if (url.protocol !== 'http:') return { error: `only http:// goes through as a plain request (use CONNECT for ${url.protocol})` };
  const originForm = `${method} ${url.pathname}${url.search} ${version}${end < 0 ? '' : head.slice(end)}`;
  return { host: url.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port: Number(url.port || 80), tunnel: false, rest: originForm };
}

const isLocalAddress = (address: string) => LOCAL.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');

export function createEgressProxy(deps: EgressDeps): EgressProxy {
  const servers = new Map<string, Server>();
  const isLocal = deps.isLocal ?? isLocalAddress;

  async function decide(sessionId: string, host: string, port: number, signal: AbortSignal): Promise<ConnectionRecord> {
    const text = await deps.policyOf(sessionId);
    const parsed = parseNetPolicy(text);
    const policy: NetPolicy = 'error' in parsed ? { kind: 'none' } : parsed;
    const base = { host, port, policy: text, approvalId: null, address: null } as const;
    const allowed = netAllows(policy, host, port);
    let decision: ConnectionRecord['decision'] = 'allowed';
    let approvalId: string | null = null;
    if (!allowed) {
      const answer = await deps.approve(sessionId, `${host}:${port}`, signal);
      if (answer.decision === 'denied' || answer.decision === 'refused') return { ...base, ...answer };
      decision = answer.decision;
      approvalId = answer.approvalId;
    }
    let address: string;
    try {
      address = isIP(host) ? host : (await lookup(host)).address;
    } catch (e) {
      return { ...base, decision: 'refused', approvalId, reason: `cannot resolve ${host}: ${(e as Error).message}` };
    }
    if (allowed !== 'listed' && isLocal(address)) {
      return { ...base, address, decision: 'refused', approvalId, reason: `${address} is a local address; only a policy naming ${host} reaches it` };
    }
    return { ...base, address, decision, approvalId, reason: '' };
  }

  async function handle(sessionId: string, client: Socket): Promise<void> {
    const aborted = new AbortController();
    client.on('close', () => aborted.abort());
    client.on('error', () => undefined);
    const head = await readHead(client);
    if (head === null) return void client.destroy();
    const target = parseTarget(head.text);
    if ('error' in target) return refuse(client, 400, target.error);
    const c = await decide(sessionId, target.host, target.port, aborted.signal);
    await deps.record(sessionId, c);
    if (c.decision !== 'allowed' && c.decision !== 'approved') return refuse(client, 403, c.reason);
    const upstream = connect({ host: c.address!, port: c.port, timeout: CONNECT_TIMEOUT_MS });
    upstream.once('timeout', () => upstream.destroy(new Error('connect timed out')));
    upstream.once('error', (e) => (upstream.connecting ? refuse(client, 502, e.message) : client.destroy()));
    upstream.once('connect', () => {
      upstream.setTimeout(0);
      if (target.tunnel) client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      else upstream.write(target.rest);
      if (head.leftover.length) upstream.write(head.leftover);
      client.pipe(upstream).on('error', () => undefined);
      upstream.pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
  }

  async function stop(sessionId: string): Promise<void> {
    const server = servers.get(sessionId);
    if (!server) return;
    servers.delete(sessionId);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  return {
    async open(sessionId, socketPath) {
      if (servers.has(sessionId)) return;
      const server = createServer((client) => void handle(sessionId, client).catch(() => client.destroy()));
      servers.set(sessionId, server);
      try {
        await listenOnSocket(server, socketPath, 'egress proxy');
      } catch (e) {
        servers.delete(sessionId);
        throw e;
      }
    },
    close: stop,
    closeAll: async () => {
      await Promise.all([...servers.keys()].map(stop));
    },
  };
}

/** The request head up to its blank line, and whatever the client sent after it. */
function readHead(client: Socket): Promise<{ text: string; leftover: Buffer } | null> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end >= 0) {
        client.off('data', onData);
        client.pause();
        resolve({ text: buf.subarray(0, end + 4).toString('latin1'), leftover: buf.subarray(end + 4) });
      } else if (buf.length > MAX_HEAD_BYTES) {
        client.off('data', onData);
        resolve(null);
      }
    };
    client.on('data', onData);
    client.once('end', () => resolve(null));
  });
}

function refuse(client: Socket, status: number, reason: string): void {
  const text = { 400: 'Bad Request', 403: 'Forbidden', 502: 'Bad Gateway' }[status] ?? 'Error';
  const body = `${reason}\n`;
  client.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
