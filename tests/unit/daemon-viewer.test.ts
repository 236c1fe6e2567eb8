import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECURITY_HEADERS } from '../../services/daemon/security-headers';
import { startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { rawRequest, tryWebSocket, type RawReply } from '../helpers/raw-http';

/** A stand-in bundle: the daemon serves whatever dist/ui holds, so the test owns its files. */
function fakeBundle(): string {
  // A servable file right above the bundle, so a path that escaped it would find one.
  const parent = mkdtempSync(join(tmpdir(), 'recur-ui-'));
  writeFileSync(join(parent, 'outside.js'), 'outside the bundle');
  const dir = join(parent, 'ui');
  mkdirSync(dir);
  writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="/ui/app.js"></script>');
  writeFileSync(join(dir, 'app.js'), 'console.log("viewer")');
  writeFileSync(join(dir, 'app.js.map'), '{"version":3}');
  writeFileSync(join(dir, '.hidden'), 'secret dotfile');
  writeFileSync(join(dir, '.secret.js'), 'secret dotfile');
  writeFileSync(join(dir, 'notes.txt'), 'no type for this');
  mkdirSync(join(dir, 'sub'));
  writeFileSync(join(dir, 'sub', 'deep.js'), 'nested');
  symlinkSync(join(process.cwd(), 'package.json'), join(dir, 'linked.js'));
  return dir;
}

const expectSecurityHeaders = (r: RawReply) => {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(r.headers[name]).toBe(value);
  expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
};

describe('the daemon serving the viewer', () => {
  let srv: TestServer;
  let host: string;
  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(srv.url, 'GET', path, { host, ...headers });
  const bearer = () => ({ authorization: `Bearer ${srv.token}` });
  const mint = async () => JSON.parse((await rawRequest(srv.url, 'POST', '/v1/ui/codes', { host, ...bearer() })).text) as { code: string; expiresAt: string };
  const login = (code: unknown, headers: Record<string, string> = {}) =>
    rawRequest(srv.url, 'POST', '/ui/login', { host, 'content-type': 'application/json', ...headers }, JSON.stringify({ code }));
  const signIn = async () => {
    const r = await login((await mint()).code, { origin: `http://${host}` });
    return `recur_ui=${/recur_ui=([0-9a-f]{64})/.exec(String(r.headers['set-cookie']))![1]}`;
  };

  beforeAll(async () => {
    srv = await startTestServer({ uiDir: fakeBundle() });
    host = new URL(srv.url).host;
  });
  afterAll(() => srv.close());

  it('redirects / to /ui/ and serves the page and its files without auth, typed by extension', async () => {
    const root = await get('/');
    expect([root.status, root.headers.location]).toEqual([302, '/ui/']);
    const page = await get('/ui/');
    expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    expect(page.text).toContain('/ui/app.js');
    const js = await get('/ui/app.js');
    expect([js.status, js.headers['content-type'], js.text]).toEqual([200, 'text/javascript; charset=utf-8', 'console.log("viewer")']);
    expect((await get('/ui/app.js.map')).headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await get('/ui')).headers.location).toBe('/ui/');
  });

  it.each([
    '/ui/../package.json', '/ui/%2e%2e/package.json', '/ui/../outside.js', '/ui/%2e%2e/outside.js', '/ui/%2E%2E%2Foutside.js', '/ui/..%2foutside.js',
    '/ui/..%5coutside.js', '/ui/.hidden', '/ui/.secret.js', '/ui/%2esecret.js', '/ui/sub/deep.js', '/ui/sub%2fdeep.js', '/ui/linked.js', '/ui/notes.txt',
    '/ui/missing.js', '/ui/../../../etc/passwd',
  ])('answers %s with a 404 JSON error, never a file', async (path) => {
    const r = await get(path);
    expect(r.status).toBe(404);
    expect(r.headers['content-type']).toBe('application/json');
    expect(JSON.parse(r.text)).toEqual({ error: { name: 'NotFoundError', message: expect.any(String) } });
    expectSecurityHeaders(r);
  });

  it('says how to build the viewer when dist/ui has no page yet', async () => {
    const bare = await startTestServer({ uiDir: mkdtempSync(join(tmpdir(), 'recur-ui-empty-')) });
    try {
      const r = await rawRequest(bare.url, 'GET', '/ui/', { host: new URL(bare.url).host });
      expect(r.status).toBe(503);
      expect(JSON.parse(r.text).error.message).toBe('the viewer is not built: run npm run build');
    } finally {
      await bare.close();
    }
  });

  it('follows the settings: the cookie lives RECUR_UI_SESSION_SECONDS, /v1/ui/info names the trace template and a Temporal UI that answers', async () => {
    const temporalUi = createServer((_req, res) => res.end('temporal ui'));
    await new Promise<void>((resolve) => temporalUi.listen(0, '127.0.0.1', resolve));
    const uiUrl = `http://127.0.0.1:${(temporalUi.address() as AddressInfo).port}`;
    const set = await startTestServer({
      uiDir: mkdtempSync(join(tmpdir(), 'recur-ui-set-')),
      env: { RECUR_UI_SESSION_SECONDS: '600', RECUR_TRACE_URL: 'http://jaeger.test/trace/{traceId}', RECUR_TEMPORAL_UI_URL: uiUrl },
    });
    try {
      const setHost = new URL(set.url).host;
      const { code } = JSON.parse((await rawRequest(set.url, 'POST', '/v1/ui/codes', { host: setHost, authorization: `Bearer ${set.token}` })).text);
      const r = await rawRequest(set.url, 'POST', '/ui/login', { host: setHost }, JSON.stringify({ code }));
      expect(String(r.headers['set-cookie'])).toMatch(/; Max-Age=600$/);
      const info = await rawRequest(set.url, 'GET', '/v1/ui/info', { host: setHost, authorization: `Bearer ${set.token}` });
      expect(JSON.parse(info.text)).toEqual({ temporalUi: uiUrl, namespace: 'default', traceUrl: 'http://jaeger.test/trace/{traceId}' });
    } finally {
      await set.close();
      temporalUi.close();
    }
  });

  it('puts the security headers on pages, files, redirects, API replies, errors and refused upgrades, and never CORS ones', async () => {
    const replies = [
      await get('/'), await get('/ui/'), await get('/ui/app.js'), await get('/v1/health', bearer()), await get('/v1/health'),
      await rawRequest(srv.url, 'OPTIONS', '/v1/sessions', { host, origin: 'http://evil.test', 'access-control-request-method': 'POST' }),
      await login('nope'), await get('/ui/', { host: 'evil.test' }),
    ];
    expect(replies.map((r) => r.status)).toEqual([302, 200, 200, 200, 401, 401, 401, 421]);
    replies.forEach(expectSecurityHeaders);
    const ws = await tryWebSocket(`${srv.url.replace('http', 'ws')}/v1/sessions/r1/events`, {});
    expect(ws.opened).toBe(false);
    if (!ws.opened) {
      expect(ws.status).toBe(401);
      expectSecurityHeaders({ status: ws.status, headers: ws.headers, text: ws.text });
    }
  });

  it.each(['evil.test', `evil.test:${'PORT'}`, '127.0.0.1:1', 'localhost', '127.0.0.1:PORT.evil.test'])('refuses the viewer under Host %j with a 421 (DNS rebinding)', async (bad) => {
    const r = await get('/ui/', { host: bad.replace('PORT', new URL(srv.url).port) });
    expect(r.status).toBe(421);
    expect(JSON.parse(r.text).error.name).toBe('MisdirectedRequestError');
  });

  it('serves the viewer under localhost and [::1] with its port too', async () => {
    const port = new URL(srv.url).port;
    for (const name of ['localhost', 'LOCALHOST', '[::1]']) expect((await get('/ui/', { host: `${name}:${port}` })).status).toBe(200);
  });

  it('mints codes with the bearer token only', async () => {
    const { code, expiresAt } = await mint();
    expect(code).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(100_000);
    expect((await rawRequest(srv.url, 'POST', '/v1/ui/codes', { host })).status).toBe(401);
    const viaCookie = await rawRequest(srv.url, 'POST', '/v1/ui/codes', { host, cookie: await signIn(), origin: `http://${host}` });
    expect(viaCookie.status).toBe(403);
  });

  it('exchanges a code once for an HttpOnly SameSite=Strict cookie; a used or made-up code is a 401', async () => {
    const { code } = await mint();
    const r = await login(code);
    expect(r.status).toBe(204);
    expect(r.headers['set-cookie']).toEqual([expect.stringMatching(/^recur_ui=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/)]);
    for (const again of [code, 'x'.repeat(43), 42]) {
      const refused = await login(again);
      expect(refused.status).toBe(401);
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a sign-in from another origin or under another Host, and leaves the code unused', async () => {
    const { code } = await mint();
    expect((await login(code, { origin: 'http://evil.test' })).status).toBe(403);
    expect((await login(code, { origin: 'null' })).status).toBe(403);
    expect((await login(code, { host: 'evil.test' })).status).toBe(421);
    expect((await login(code, { origin: `http://${host}` })).status).toBe(204);
  });

  it('lets the cookie read the API (GET), never write to it', async () => {
    const cookie = await signIn();
    expect((await get('/v1/sessions', { cookie })).status).toBe(200);
    expect((await get('/v1/ui/info', { cookie })).text).toBe(JSON.stringify({ temporalUi: null, namespace: 'default', traceUrl: null }));
    for (const [method, path] of [['POST', '/v1/sessions'], ['POST', '/v1/sessions/r1/kill'], ['DELETE', '/v1/sessions/r1'], ['PUT', '/v1/health']]) {
      const r = await rawRequest(srv.url, method, path, { host, cookie, origin: `http://${host}`, 'content-type': 'application/json' }, '{"task":"x","model":"openai/gpt-4o"}');
      expect([r.status, JSON.parse(r.text).error]).toEqual([403, { name: 'ForbiddenError', message: 'the viewer is read-only' }]);
    }
  });

  it('refuses a cookie request from another origin (403) or under another Host (421), and an unknown cookie (401)', async () => {
    const cookie = await signIn();
    expect((await get('/v1/sessions', { cookie, origin: 'http://evil.test' })).status).toBe(403);
    expect((await get('/v1/sessions', { cookie, origin: `http://${host}` })).status).toBe(200);
    expect((await get('/v1/sessions', { cookie, host: 'rebound.evil.test' })).status).toBe(421);
    const unknown = await get('/v1/sessions', { cookie: `recur_ui=${'0'.repeat(64)}` });
    expect([unknown.status, JSON.parse(unknown.text).error.message]).toEqual([401, 'the viewer is signed out: run `recur ui` for a new link']);
  });

  it('opens the events WebSocket with the cookie only when it names the daemon as its Origin', async () => {
    const cookie = await signIn();
    const ws = `${srv.url.replace('http', 'ws')}/v1/sessions/r1/events`;
    const opened = await tryWebSocket(ws, { cookie, origin: `http://${host}` });
    expect(opened.opened).toBe(true);
    expectSecurityHeaders({ status: 101, headers: opened.headers, text: '' });
    expect(await tryWebSocket(ws, { cookie })).toMatchObject({ opened: false, status: 403 });
    expect(await tryWebSocket(ws, { cookie, origin: 'http://evil.test' })).toMatchObject({ opened: false, status: 403 });
    expect(await tryWebSocket(ws, { cookie, origin: 'http://evil.test', host: 'evil.test' })).toMatchObject({ opened: false, status: 421 });
    expect(await tryWebSocket(ws, bearer())).toMatchObject({ opened: true });
  });

  it('signs out: the session ends and the cookie is cleared', async () => {
    const cookie = await signIn();
    const r = await rawRequest(srv.url, 'POST', '/ui/logout', { host, cookie, origin: `http://${host}` });
    expect(r.status).toBe(204);
    expect(r.headers['set-cookie']).toEqual(['recur_ui=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0']);
    expect((await get('/v1/sessions', { cookie })).status).toBe(401);
  });

  it('never puts the token in a page, a file or a header', async () => {
    const cookie = await signIn();
    for (const r of [await get('/'), await get('/ui/'), await get('/ui/app.js'), await get('/v1/sessions', { cookie }), await get('/v1/ui/info', { cookie })]) {
      expect(JSON.stringify(r.headers) + r.text).not.toContain(srv.token);
    }
  });
});
