import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import WebSocket from 'ws';
import { ZERO_HASH } from '../../schemas';
import { temporalAddress } from '../../config/connections';
import type { StreamFrame } from '../../services/daemon/api-types';
import { ownDaemonHome } from '../helpers/own-daemon-home';
import type { Daemon } from '../../services/daemon/daemon';
import { cliInProcess } from '../helpers/cli-in-process';
import { rawRequest, tryWebSocket } from '../helpers/raw-http';

/**
 * The viewer's sign-in against a real daemon on the real stack: `recur ui` mints the code, a
 * plain HTTP client plays the browser. Own home, port, task queue and topic, as daemon-api.test.ts.
 */
describe('viewer sign-in and cookie access on a real daemon', () => {
  const { suffix, config, producer, log, start } = ownDaemonHome('viewer-it');
  const uiDir = mkdtempSync(join(tmpdir(), 'recur-viewer-ui-'));
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><link rel="stylesheet" href="/ui/app.css"><script type="module" src="/ui/app.js"></script>');
  writeFileSync(join(uiDir, 'app.js'), 'export {}');
  const logLines: string[] = [];
  let daemon: Daemon;
  let connection: Connection;
  let client: Client;
  let host: string;
  let origin: string;
  let sessionId: string;
  let cookie: string;
  const seen: string[] = [];

  const fetchSeen = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${daemon.url}${path}`, init);
    const text = await res.text();
    seen.push(JSON.stringify([...res.headers]), text);
    return { status: res.status, text, headers: res.headers };
  };

  beforeAll(async () => {
    daemon = await start(1, { uiDir, log: (line) => logLines.push(line) });
    host = new URL(daemon.url).host;
    origin = `http://${host}`;
    connection = await Connection.connect({ address: temporalAddress(config) });
    client = new Client({ connection, namespace: config.temporal.namespace });
    const started = await fetch(`${daemon.url}/v1/sessions`, {
      method: 'POST', headers: { authorization: `Bearer ${daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ task: 'stay open', model: 'openai/gpt-4o' }),
    });
    sessionId = ((await started.json()) as { sessionId: string }).sessionId;
  });

  afterAll(async () => {
    if (sessionId) await client.workflow.getHandle(sessionId).terminate('test over').catch(() => undefined);
    await daemon?.close();
    await connection?.close();
    await producer.disconnect();
  });

  it('recur ui prints a link whose one-time code a browser exchanges for the HttpOnly cookie, once', async () => {
    const ui = await cliInProcess(['ui', '--no-open'], { RECUR_HOME: config.home, RECUR_DAEMON_PORT: new URL(daemon.url).port });
    expect(ui.code).toBe(0);
    const link = new URL(ui.out[ui.out.length - 1]);
    expect(`${link.origin}${link.pathname}`).toBe(`${daemon.url}/ui/`);
    const code = /^#login=([A-Za-z0-9_-]{43,})$/.exec(link.hash)?.[1];
    expect(code).toBeDefined();
    seen.push(...ui.out, ...ui.err);

    const page = await fetchSeen('/ui/');
    expect([page.status, page.headers.get('content-security-policy')]).toEqual([200, expect.stringContaining("script-src 'self'")]);
    const login = () => fetchSeen('/ui/login', { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    const first = await login();
    expect(first.status).toBe(204);
    const setCookie = first.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^recur_ui=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    cookie = setCookie.split(';')[0];
    const again = await login();
    expect([again.status, again.headers.get('set-cookie')]).toEqual([401, null]);
  });

  it('the cookie reads the sessions Temporal lists', async () => {
    let list = await fetchSeen('/v1/sessions', { headers: { cookie } });
    // Visibility is eventually consistent: wait for the session started above to be listed.
    while (list.status === 200 && !list.text.includes(sessionId)) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      list = await fetchSeen('/v1/sessions', { headers: { cookie } });
    }
    expect(list.status).toBe(200);
    expect(JSON.parse(list.text).sessions).toContainEqual(expect.objectContaining({ sessionId, status: 'running' }));
    expect((await fetchSeen('/v1/sessions', { headers: { cookie, origin } })).status).toBe(200);
  });

  it('the cookie follows the events WebSocket from the page origin', async () => {
    const root = `v${suffix}`;
    await log.appendEvents({
      sessionId: root, rootId: root, parentId: null, fromSeq: 0, prevHash: ZERO_HASH,
      events: [{ ts: 1_700_000_000_000, event: { type: 'SessionStarted', task: 't', name: 'root', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 } }],
    });
    const ws = new WebSocket(`${daemon.url.replace('http', 'ws')}/v1/sessions/${root}/events`, { headers: { cookie, origin } });
    const frame = await new Promise<StreamFrame>((resolve, reject) => {
      ws.once('message', (data) => resolve(JSON.parse(data.toString()) as StreamFrame));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    });
    ws.close();
    expect(frame).toMatchObject({ eventId: `${root}/0`, type: 'SessionStarted' });
  });

  it('refuses the cookie for anything but reading, from another origin, or under another Host', async () => {
    const kill = await fetchSeen(`/v1/sessions/${encodeURIComponent(sessionId)}/kill`, { method: 'POST', headers: { cookie, origin } });
    expect([kill.status, JSON.parse(kill.text).error.message]).toEqual([403, 'the viewer is read-only']);
    const started = await fetchSeen('/v1/sessions', { method: 'POST', headers: { cookie, origin, 'content-type': 'application/json' }, body: '{"task":"x","model":"openai/gpt-4o"}' });
    expect(started.status).toBe(403);
    expect((await fetchSeen('/v1/ui/codes', { method: 'POST', headers: { cookie, origin } })).status).toBe(403);
    expect((await client.workflow.getHandle(sessionId).describe()).status.name).toBe('RUNNING');

    expect((await fetchSeen('/v1/sessions', { headers: { cookie, origin: 'http://evil.test' } })).status).toBe(403);
    expect((await rawRequest(daemon.url, 'GET', '/v1/sessions', { host: 'rebound.evil.test', cookie })).status).toBe(421);
    const ws = `${daemon.url.replace('http', 'ws')}/v1/sessions/v${suffix}/events`;
    expect(await tryWebSocket(ws, { cookie, origin: 'http://evil.test' })).toMatchObject({ opened: false, status: 403 });
    expect(await tryWebSocket(ws, { cookie })).toMatchObject({ opened: false, status: 403 });
    expect(await tryWebSocket(ws, { cookie, origin: 'http://rebound.evil.test:80', host: 'rebound.evil.test:80' })).toMatchObject({ opened: false, status: 421 });
  });

  it('after sign-out the cookie is refused as signed out', async () => {
    expect((await fetchSeen('/ui/logout', { method: 'POST', headers: { cookie, origin } })).status).toBe(204);
    const r = await fetchSeen('/v1/sessions', { headers: { cookie } });
    expect([r.status, JSON.parse(r.text).error.message]).toEqual([401, 'the viewer is signed out: run `recur ui` for a new link']);
  });

  it('the token appeared in no page, header, CLI line or daemon log line', () => {
    expect(seen.length).toBeGreaterThan(10);
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [...seen, ...logLines]) expect(text).not.toContain(daemon.token);
  });
});
