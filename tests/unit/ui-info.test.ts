import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseConfig } from '../../config';
import { createUiInfo, probeHttp } from '../../services/daemon/ui-info';

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('viewer settings and GET /v1/ui/info', () => {
  it('defaults: codes live 120 s, sign-ins 43200 s, no Temporal UI, no trace links, 256 MiB of cached trees', () => {
    const { config, errors } = parseConfig({ RECUR_HOME: '/tmp/recur-ui-config' });
    expect(errors).toEqual([]);
    expect(config.ui).toEqual({ codeSeconds: 120, sessionSeconds: 43200, temporalUiUrl: null, traceUrl: null, cacheMiB: 256 });
  });

  it.each([
    [{ RECUR_TRACE_URL: 'http://localhost:16686/trace/' }, 'RECUR_TRACE_URL'],
    [{ RECUR_TRACE_URL: 'javascript:alert({traceId})' }, 'RECUR_TRACE_URL'],
    [{ RECUR_TEMPORAL_UI_URL: 'localhost:8233' }, 'RECUR_TEMPORAL_UI_URL'],
    [{ RECUR_UI_CODE_SECONDS: '5' }, 'RECUR_UI_CODE_SECONDS'],
    [{ RECUR_UI_SESSION_SECONDS: '0' }, 'RECUR_UI_SESSION_SECONDS'],
    [{ RECUR_UI_CACHE_MIB: '-1' }, 'RECUR_UI_CACHE_MIB'],
  ])('refuses %j naming %s', (env, name) => {
    const { errors } = parseConfig({ RECUR_HOME: '/tmp/recur-ui-config', ...env });
    expect(errors).toEqual([expect.stringContaining(name)]);
  });

  it('takes valid settings', () => {
    const { config, errors } = parseConfig({
      RECUR_HOME: '/tmp/recur-ui-config', RECUR_TRACE_URL: 'http://localhost:16686/trace/{traceId}', RECUR_TEMPORAL_UI_URL: 'http://localhost:8233/',
      RECUR_UI_CODE_SECONDS: '30', RECUR_UI_SESSION_SECONDS: '600', RECUR_UI_CACHE_MIB: '0',
    });
    expect(errors).toEqual([]);
    expect(config.ui).toEqual({ codeSeconds: 30, sessionSeconds: 600, temporalUiUrl: 'http://localhost:8233/', traceUrl: 'http://localhost:16686/trace/{traceId}', cacheMiB: 0 });
  });

  it('links the Temporal UI only while a probe finds it up, probing at most once per 30 s', async () => {
    const config = parseConfig({ RECUR_HOME: '/tmp/recur-ui-config', RECUR_TEMPORAL_UI_URL: 'http://temporal-ui.test/', RECUR_TRACE_URL: 'http://t/{traceId}' }).config;
    let t = 0;
    let up = true;
    const probed: string[] = [];
    const info = createUiInfo(config, async (url) => (probed.push(url), up), () => t);
    expect(await info()).toEqual({ temporalUi: 'http://temporal-ui.test', namespace: 'default', traceUrl: 'http://t/{traceId}' });
    up = false;
    t += 29_999;
    expect((await info()).temporalUi).toBe('http://temporal-ui.test');
    t += 1;
    expect((await info()).temporalUi).toBeNull();
    expect(probed).toEqual(['http://temporal-ui.test', 'http://temporal-ui.test']);
  });

  it('never probes when no Temporal UI is configured', async () => {
    const probe = jest.fn(async () => true);
    const info = createUiInfo(parseConfig({ RECUR_HOME: '/tmp/recur-ui-config' }).config, probe);
    expect(await info()).toEqual({ temporalUi: null, namespace: 'default', traceUrl: null });
    expect(probe).not.toHaveBeenCalled();
  });

  it('probes with an HTTP GET: an answer is up, a server error, a refusal or no answer within the timeout is down', async () => {
    let status = 200;
    const methods: string[] = [];
    const answering = createServer((req, res) => (methods.push(req.method ?? ''), res.writeHead(status).end('ok')));
    const silent = createServer(() => undefined);
    const [url, silentUrl] = [await listen(answering), await listen(silent)];
    try {
      expect(await probeHttp(url)).toBe(true);
      status = 503;
      expect(await probeHttp(url)).toBe(false);
      expect(methods).toEqual(['GET', 'GET']);
      expect(await probeHttp(silentUrl, 200)).toBe(false);
      answering.close();
      answering.closeAllConnections();
      expect(await probeHttp(url)).toBe(false);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});
