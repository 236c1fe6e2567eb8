import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type HostBridge, startHostBridge } from '../../services/host-bridge';
import { openOn, socketPath, socketRequest } from '../helpers/bridge-socket';

const json = (body: unknown, token?: string) => ({
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('host bridge authentication', () => {
  let bridge: HostBridge;

  beforeEach(async () => {
    bridge = await startHostBridge({ maxBodyBytes: 4096 });
    bridge.handle('whoami', async (sessionId) => sessionId);
  });
  afterEach(() => bridge.close());

  test("a session token acts as its session, on its session's socket", async () => {
    const a = await openOn(bridge, 'root/a');
    expect(a.token).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f]{64}$/);
    expect(await bridge.openSession('root/a', a.socket)).toBe(a.token);
    expect(await a.request(json({ op: 'whoami', session: 'root/a' }, a.token))).toEqual({ status: 200, body: { result: 'root/a' } });
  });

  test("another session's valid token on this session's socket is 403 and never reaches a handler", async () => {
    const handler = jest.fn(async () => 'ran');
    bridge.handle('mutate', handler);
    const a = await openOn(bridge, 'a');
    const b = await openOn(bridge, 'b');
    const r = await a.request(json({ op: 'mutate' }, b.token));
    expect(r.status).toBe(403);
    expect(r.body.error?.name).toBe('ScopeError');
    const claimed = await a.request(json({ op: 'mutate', session: 'b' }, a.token));
    expect(claimed.status).toBe(403);
    expect(handler).not.toHaveBeenCalled();
  });

  test('a bridge restarted with the same secret honours the tokens kernels hold; another secret does not', async () => {
    const secret = Buffer.alloc(32, 7);
    const first = await startHostBridge({ secret });
    const socket = socketPath();
    const token = await first.openSession('root/a', socket);
    await first.close();
    const again = await startHostBridge({ secret });
    const other = await startHostBridge({ secret: Buffer.alloc(32, 8) });
    try {
      for (const b of [again, other]) b.handle('whoami', async (sessionId) => sessionId);
      await again.openSession('root/a', socket);
      expect(await socketRequest(socket, json({ op: 'whoami' }, token))).toEqual({ status: 200, body: { result: 'root/a' } });
      const otherSocket = socketPath();
      await other.openSession('root/a', otherSocket);
      expect((await socketRequest(otherSocket, json({ op: 'whoami' }, token))).status).toBe(401);
      // A token names its session; claiming another session with it is still forgery.
      const [, mac] = token.split('.');
      const claimed = `${Buffer.from('root/b').toString('base64url')}.${mac}`;
      expect((await socketRequest(socket, json({ op: 'whoami' }, claimed))).status).toBe(401);
    } finally {
      await again.close();
      await other.close();
    }
  });

  test('a missing or forged token is 401 with a JSON error', async () => {
    const s = await openOn(bridge, 's1');
    expect(await s.request(json({ op: 'whoami' }))).toEqual({
      status: 401,
      body: { error: { name: 'UnauthorizedError', message: 'missing bearer token' } },
    });
    const forged = s.token.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    expect((await s.request(json({ op: 'whoami' }, forged))).status).toBe(401);
  });

  test('a revoked session loses its socket, and a bridge restarted after the revocation does not bring it back', async () => {
    const secret = Buffer.alloc(32, 9);
    const first = await startHostBridge({ secret });
    first.handle('whoami', async (sessionId) => sessionId);
    const socket = socketPath();
    const token = await first.openSession('s1', socket);
    await first.revokeSession('s1');
    expect(existsSync(socket)).toBe(false);
    // What the kernel's client reads to fail at once rather than wait for a restarting worker.
    expect(existsSync(join(dirname(socket), 'revoked'))).toBe(true);
    await expect(socketRequest(socket, json({ op: 'whoami' }, token))).rejects.toMatchObject({ code: 'ENOENT' });
    await first.close();
    // The next worker opens sockets only for sessions it serves: nothing listens for s1.
    const again = await startHostBridge({ secret });
    try {
      await expect(socketRequest(socket, json({ op: 'whoami' }, token))).rejects.toMatchObject({ code: 'ENOENT' });
      // Serving the session again (it was reloaded) lifts the mark.
      await again.openSession('s1', socket);
      expect(existsSync(join(dirname(socket), 'revoked'))).toBe(false);
    } finally {
      await again.close();
    }
  });

  test('a socket path over the Linux limit is refused with a clear error', async () => {
    await expect(bridge.openSession('s', `/tmp/${'x'.repeat(120)}/sock`)).rejects.toThrow(/over Linux's 107/);
  });

  test('a body over the limit is 413, also when it grows chunk by chunk', async () => {
    const s = await openOn(bridge, 's');
    const r = await s.request(json({ op: 'whoami', args: { blob: 'x'.repeat(5000) } }, s.token));
    expect(r).toEqual({ status: 413, body: { error: { name: 'PayloadTooLargeError', message: 'request body over 4096 bytes' } } });
    const chunked = await s.request({ headers: json({}, s.token).headers, body: Array.from({ length: 10 }, () => 'x'.repeat(1000)) });
    expect(chunked.status).toBe(413);
  });

  test('only POST /rpc with a JSON content type is served', async () => {
    const s = await openOn(bridge, 's');
    const auth = { authorization: `Bearer ${s.token}` };
    expect((await s.request({ method: 'GET', headers: auth })).status).toBe(405);
    expect((await s.request({ path: '/other', headers: auth })).status).toBe(404);
    expect((await s.request({ headers: { ...auth, 'content-type': 'text/plain' }, body: '{}' })).status).toBe(415);
  });
});
