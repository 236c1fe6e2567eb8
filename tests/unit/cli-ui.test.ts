import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NOT_RUNNING } from '../../services/cli/daemon-client';
import { urlOpener } from '../../services/cli/open-url';
import { cliInProcess } from '../helpers/cli-in-process';
import { startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { rawRequest } from '../helpers/raw-http';

const URL_LINE = /^http:\/\/127\.0\.0\.1:\d+\/ui\/#login=([A-Za-z0-9_-]{43})$/;

describe('recur ui', () => {
  let srv: TestServer;
  let env: Record<string, string>;
  const saved = { DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };

  beforeAll(async () => {
    srv = await startTestServer({ uiDir: mkdtempSync(join(tmpdir(), 'recur-ui-')) });
    env = { RECUR_HOME: srv.config.home, RECUR_DAEMON_PORT: String(srv.config.ports.daemon) };
  });
  beforeEach(() => {
    delete process.env.DISPLAY;
    delete process.env.WAYLAND_DISPLAY;
  });
  afterAll(async () => {
    Object.assign(process.env, saved);
    await srv.close();
  });

  it('prints a one-time sign-in link as its last line; the code signs a browser in once', async () => {
    const r = await cliInProcess(['ui', '--no-open'], env);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([]);
    const code = URL_LINE.exec(r.out[r.out.length - 1])?.[1];
    expect(code).toBeDefined();
    expect(r.out.join('\n')).not.toContain(srv.token);
    const host = new URL(srv.url).host;
    const login = () => rawRequest(srv.url, 'POST', '/ui/login', { host }, JSON.stringify({ code }));
    expect((await login()).status).toBe(204);
    expect((await login()).status).toBe(401);
  });

  it('each run mints a new code', async () => {
    const one = (await cliInProcess(['ui', '--no-open'], env)).out.at(-1);
    const two = (await cliInProcess(['ui', '--no-open'], env)).out.at(-1);
    expect(one).not.toBe(two);
  });

  it('opens the link with xdg-open where a display exists', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'recur-open-'));
    const seen = join(bin, 'seen');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > "${seen}.tmp" && mv "${seen}.tmp" "${seen}"\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const r = await cliInProcess(['ui'], { ...env, DISPLAY: ':0', PATH: `${bin}:${process.env.PATH}` });
    expect(r.code).toBe(0);
    // The opener runs detached; the command does not wait for it, so neither can the test but by looking.
    while (!existsSync(seen)) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(readFileSync(seen, 'utf8')).toBe(r.out.at(-1));
  });

  it('notes a failed open on stderr and still prints the link', async () => {
    const r = await cliInProcess(['ui'], { ...env, WAYLAND_DISPLAY: 'wayland-0', PATH: mkdtempSync(join(tmpdir(), 'recur-no-open-')) });
    expect(r.code).toBe(0);
    expect(r.err).toEqual([expect.stringMatching(/^could not start xdg-open \(.*ENOENT.*\); open the link below yourself$/)]);
    expect(r.out.at(-1)).toMatch(URL_LINE);
  });

  it('opens only on a desktop: a display on Linux, always on macOS, never on a bare server', () => {
    expect(urlOpener({}, 'linux')).toBeNull();
    expect(urlOpener({ DISPLAY: ':0' }, 'linux')).toBe('xdg-open');
    expect(urlOpener({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toBe('xdg-open');
    expect(urlOpener({}, 'darwin')).toBe('open');
  });

  it('says the daemon is not running when there is none', async () => {
    const r = await cliInProcess(['ui', '--no-open'], { RECUR_HOME: mkdtempSync(join(tmpdir(), 'recur-no-daemon-')) });
    expect([r.code, r.message]).toEqual([1, DAEMON_NOT_RUNNING]);
  });
});
