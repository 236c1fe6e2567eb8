import { request } from 'node:http';
import { type HostBridge, startHostBridge } from '../../services/host-bridge';

async function post(bridge: HostBridge, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${bridge.url}/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { result?: unknown; error?: { name: string; message: string } } };
}

describe('host bridge authentication', () => {
  let bridge: HostBridge;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeEach(async () => {
    bridge = await startHostBridge({ maxBodyBytes: 4096 });
    bridge.handle('whoami', async (sessionId) => sessionId);
  });
  afterEach(() => bridge.close());

  test('listens on loopback only and refuses other hosts', async () => {
    expect(bridge.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(startHostBridge({ host: '0.0.0.0' })).rejects.toThrow(/loopback/);
  });

  test('a session token acts as its session', async () => {
    const token = bridge.registerSession('root/a');
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[0-9a-f]{64}$/);
    expect(bridge.registerSession('root/a')).toBe(token);
    expect(await post(bridge, { op: 'whoami', session: 'root/a' }, bearer(token))).toEqual({ status: 200, body: { result: 'root/a' } });
  });

  test('a bridge restarted with the same secret honours the tokens kernels hold; another secret does not', async () => {
    const secret = Buffer.alloc(32, 7);
    const first = await startHostBridge({ secret });
    const token = first.registerSession('root/a');
    await first.close();
    const again = await startHostBridge({ secret });
    const other = await startHostBridge({ secret: Buffer.alloc(32, 8) });
    try {
      for (const b of [again, other]) b.handle('whoami', async (sessionId) => sessionId);
      expect(await post(again, { op: 'whoami' }, bearer(token))).toEqual({ status: 200, body: { result: 'root/a' } });
      expect((await post(other, { op: 'whoami' }, bearer(token))).status).toBe(401);
      // A token names its session; claiming another session with it is still forgery.
      const [, mac] = token.split('.');
      const claimed = `${Buffer.from('root/b').toString('base64url')}.${mac}`;
      expect((await post(again, { op: 'whoami' }, bearer(claimed))).status).toBe(401);
    } finally {
      await again.close();
      await other.close();
    }
  });

  test('a missing, unknown or revoked token is 401 with a JSON error', async () => {
    const token = bridge.registerSession('s1');
    expect(await post(bridge, { op: 'whoami' })).toEqual({
      status: 401,
      body: { error: { name: 'UnauthorizedError', message: 'missing bearer token' } },
    });
    const forged = token.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    expect((await post(bridge, { op: 'whoami' }, bearer(forged))).status).toBe(401);
    bridge.revokeSession('s1');
    const revoked = await post(bridge, { op: 'whoami' }, bearer(token));
    expect(revoked).toEqual({ status: 401, body: { error: { name: 'UnauthorizedError', message: 'unknown or revoked session token' } } });
  });

  test('a token used with another session id is 403 and never reaches a handler', async () => {
    const handler = jest.fn(async () => 'ran');
    bridge.handle('mutate', handler);
    const tokenA = bridge.registerSession('a');
    bridge.registerSession('b');
    const r = await post(bridge, { op: 'mutate', session: 'b' }, bearer(tokenA));
    expect(r.status).toBe(403);
    expect(r.body.error?.name).toBe('ScopeError');
    expect(handler).not.toHaveBeenCalled();
  });

  test('a body over the limit is 413', async () => {
    const token = bridge.registerSession('s');
    const r = await post(bridge, { op: 'whoami', args: { blob: 'x'.repeat(5000) } }, bearer(token));
    expect(r).toEqual({ status: 413, body: { error: { name: 'PayloadTooLargeError', message: 'request body over 4096 bytes' } } });
  });

  test('a chunked body that grows over the limit is 413 too', async () => {
    const token = bridge.registerSession('s');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${bridge.url}/rpc`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write('x'.repeat(1000));
      req.end();
    });
    expect(status).toBe(413);
  });

  test('only POST /rpc with a JSON content type is served', async () => {
    const token = bridge.registerSession('s');
    expect((await fetch(`${bridge.url}/rpc`, { headers: bearer(token) })).status).toBe(405);
    expect((await fetch(`${bridge.url}/other`, { method: 'POST', headers: bearer(token) })).status).toBe(404);
    const plain = await fetch(`${bridge.url}/rpc`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'text/plain' }, body: '{}' });
    expect(plain.status).toBe(415);
  });
});
