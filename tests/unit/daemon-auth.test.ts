import { readFileSync, statSync } from 'node:fs';
import WebSocket from 'ws';
import { bearerMatches } from '../../services/daemon/auth-token';
import { daemonPaths } from '../../services/daemon/paths';
import { startTestServer, type TestServer } from '../helpers/daemon-test-server';

describe('daemon token auth', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv.close());
  afterEach(() => jest.restoreAllMocks());

  it('writes the token file readable by its owner only', () => {
    const file = daemonPaths(srv.config).token;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(srv.token);
    expect(srv.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', 'Bearer 0000'],
    ['the right token with another scheme', 'token TOKEN'],
    ['the right token with a suffix', 'Bearer TOKENx'],
  ])('answers 401 JSON to a request with %s', async (_, header) => {
    const headers: Record<string, string> = header ? { authorization: header.replace('TOKEN', srv.token) } : {};
    const res = await fetch(`${srv.url}/v1/health`, { headers });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ error: { name: 'UnauthorizedError', message: expect.stringContaining('bearer token') } });
  });

  it('refuses a route it would otherwise answer (POST /v1/sessions) without the token, before reading the body', async () => {
    const res = await fetch(`${srv.url}/v1/sessions`, { method: 'POST', body: '{"task":"x","model":"openai/gpt-4o"}' });
    expect(res.status).toBe(401);
  });

  it('answers GET /v1/health with the token', async () => {
    const res = await fetch(`${srv.url}/v1/health`, { headers: { authorization: `Bearer ${srv.token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, worker: { pid: 4242, restarts: 0, alive: true } });
  });

  it('refuses a WebSocket upgrade without the token with 401', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${srv.url.replace('http', 'ws')}/v1/sessions/r1/events`, { headers: { authorization: 'Bearer nope' } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => reject(new Error('upgrade accepted without the token')));
      ws.on('error', () => undefined);
    });
    expect(status).toBe(401);
  });

  it('compares tokens with crypto.timingSafeEqual, also for a malformed header', () => {
    // The module object itself (an `import * as` namespace would be a copy the daemon never calls through).
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    expect(bearerMatches('Bearer abc', 'abc')).toBe(true);
    expect(bearerMatches('Bearer abd', 'abc')).toBe(false);
    expect(bearerMatches('garbage', 'abc')).toBe(false);
    expect(bearerMatches(undefined, 'abc')).toBe(false);
    expect(spy).toHaveBeenCalledTimes(4);
  });
});
