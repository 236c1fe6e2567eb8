import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore } from '../../activities/blob-store';
import { parseConfig, type RecurConfig } from '../../config';
import type { SessionDetail, TreeLog, WorkerState } from '../../services/daemon/api-types';
import { newDaemonToken, writeDaemonToken } from '../../services/daemon/auth-token';
import { createDaemonServer, type DaemonServerDeps } from '../../services/daemon/http-server';
import { notFound } from '../../services/daemon/http-error';
import { daemonPaths } from '../../services/daemon/paths';
import { createRoutes } from '../../services/daemon/routes';
import { createViewer } from '../../services/daemon/ui-front';
import type { SessionService } from '../../services/daemon/session-service';
import type { ViewerDeps } from '../../services/daemon/route-types';
import type { LogReadResult } from '../../services/projector';
import type { InboxMessage, SessionInput } from '../../workflows/session-types';

/** A SessionService that records calls; ids in `running` exist (described with `statuses[id]`, else running), everything else is a 404. */
export function fakeSessions(running: string[] = [], statuses: Record<string, string> = {}) {
  const live = new Set(running);
  const calls = { started: [] as SessionInput[], messages: [] as Array<[string, InboxMessage]>, cancelled: [] as string[], requests: [] as Array<[string, unknown]> };
  const need = (id: string) => {
    if (!live.has(id)) throw notFound(`no running session ${id}`);
  };
  const service: SessionService = {
    async start(input) {
      calls.started.push(input);
      live.add(input.sessionId);
    },
    list: async () => [...live].map((sessionId) => ({ sessionId, status: 'running', startTime: new Date(0).toISOString(), closeTime: null })),
    async describe(id) {
      need(id);
      const detail: SessionDetail = {
        sessionId: id, status: statuses[id] ?? 'running', startTime: new Date(0).toISOString(), closeTime: null, runId: 'run-1',
        historyLength: 3, live: null, children: null, queryError: null, result: null,
      };
      return detail;
    },
    async deliverMessage(id, message) {
      need(id);
      calls.messages.push([id, message]);
    },
    async cancel(id) {
      need(id);
      calls.cancelled.push(id);
    },
    async interrupt(id) {
      need(id);
      calls.requests.push([id, 'interrupt']);
      return { interrupted: true };
    },
    async switchModel(id, model) {
      need(id);
      calls.requests.push([id, { model }]);
      return { model };
    },
    async compact(id) {
      need(id);
      calls.requests.push([id, 'compact']);
      return { requested: true };
    },
    async goal(id, req) {
      need(id);
      calls.requests.push([id, req]);
      return req.action === 'clear' ? { ok: false, reason: 'there is no open goal' } : { ok: true, goal: null };
    },
    async schedule(id, req) {
      need(id);
      calls.requests.push([id, req]);
      return { ok: true, schedules: [] };
    },
    approvals: async () => [],
    async decideApproval(id, d) {
      need(id);
      calls.requests.push([id, d]);
      return { ok: true, answer: { id: d.id, status: d.decision, kind: 'harness-global', detail: 'd', by: d.by, reason: d.reason } };
    },
  };
  return { service, calls };
}

const emptyRead = (): LogReadResult => ({ events: [], sessions: new Map(), undecodable: [], conflicts: [], duplicates: 0 });

export interface TestServer {
  url: string;
  token: string;
  config: RecurConfig;
  close(): Promise<void>;
}

/** The daemon's HTTP/WS front with fakes behind it, on a free port, its token in a fresh home. */
export async function startTestServer(opts: {
  sessions?: SessionService;
  stream?: DaemonServerDeps['stream'];
  readLog?: (id: string) => Promise<TreeLog>;
  worker?: WorkerState;
  /** The viewer's bundle (a test's own files); dist/ui of the checkout without it. */
  uiDir?: string;
  /** More settings (RECUR_UI_*, …) for the server's config. */
  env?: Record<string, string>;
  /** The stack's model environment; by default one holding an OpenAI key, which the tests' sessions name. */
  modelEnv?: NodeJS.ProcessEnv;
} & Partial<ViewerDeps> = {}): Promise<TestServer> {
  const config = parseConfig({ RECUR_HOME: mkdtempSync(join(tmpdir(), 'recur-daemon-')), ...opts.env }).config;
  const token = newDaemonToken();
  const { server, drain } = createDaemonServer({
    token,
    viewer: createViewer(config, opts.uiDir),
    handle: createRoutes({
      config,
      sessions: opts.sessions ?? fakeSessions().service,
      worker: () => opts.worker ?? { pid: 4242, restarts: 0, alive: true },
      modelEnv: opts.modelEnv ?? { OPENAI_API_KEY: 'sk-daemon-test' },
      readLog: opts.readLog ?? (async () => ({ events: [], problems: [] })),
      readTree: opts.readTree ?? (async () => ({ tree: emptyRead(), harness: emptyRead() })),
      verifyTree: opts.verifyTree ?? (async () => { throw notFound('no verdicts in this test'); }),
      blobs: opts.blobs ?? createLocalBlobStore(join(config.home, 'blobs')),
      catalog: opts.catalog ?? (async () => ({ roots: [], complete: true, undecodable: 0 })),
    }),
    stream: opts.stream ?? (async (ws) => void ws.close(1000)),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  config.ports.daemon = port;
  writeDaemonToken(daemonPaths(config).token, token);
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    config,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, drain()]);
    },
  };
}
