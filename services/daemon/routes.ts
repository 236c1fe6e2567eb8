import { randomBytes } from 'node:crypto';
import { DEFAULT_TIER, researchStart, type ResearchStart } from '../research/research-spec';
import { readTask } from '../research/tasks';
import { inRange } from '../../config';
import type { SessionInput } from '../../workflows/session-types';
import type {
  CompactReply, HealthReply, InterruptReply, ListSessionsReply, SendMessageReply, StartSessionReply, SwitchModelReply,
} from './api-types';
import { parseCursor } from './cursor';
import { HttpError, RecurError } from '../../errors';
import { badRequest, notFound, outOfRange } from './http-error';
import { DEFAULT_LOG_PAGE, MAX_LOG_PAGE, pageLog } from './page-log';
import { checkSessionId, newRootSessionId, parseSendMessage, parseStartSession, parseSwitchModel } from './parse-requests';
import { autonomousInput, parseGoalAction, parseScheduleAction, refusal } from './long-run-input';
import { sandboxRecord } from '../sandbox/sandbox-record';
import { sessionWorkspaces } from '../sandbox/kernel-host';
import { approvalRoute } from './approval-routes';
import { forkSession } from './fork-routes';
import { rootLimits } from './root-limits';
import type { ApiReply, ApiRequest, RouteDeps } from './route-types';
import { viewerRoute } from './viewer-routes';
import { refuseUnusableModels } from './model-credentials';

const DEFAULT_LIST = 200;
const MAX_LIST = 5000;

/** A research session's start, its refusals (an unknown tier, a network the tier does not allow, generators with no role to run) as 400s. */
function startResearch(task: string, tier: string | undefined, net: string | undefined, generators: string[] | undefined): ResearchStart {
  try {
    return researchStart(readTask(task)!, tier ?? DEFAULT_TIER, net, generators);
  } catch (e) {
    if (e instanceof RecurError) throw badRequest(e.message);
    throw e;
  }
}

/** The JSON routes of API v1 (the event stream is a WebSocket, see event-stream.ts). */
export function createRoutes(deps: RouteDeps): (req: ApiRequest) => Promise<ApiReply> {
  const ok = (body: unknown, status = 200): ApiReply => ({ status, body });
  const workspaces = sessionWorkspaces(deps.config);

  async function startSession(body: unknown): Promise<ApiReply> {
    const req = parseStartSession(body, deps.config.agent.scriptedDirs, deps.config.home);
    // Before the workflow starts (it logs SessionStarted first): a model that cannot work where
    // the stack runs leaves no session behind.
    refuseUnusableModels([req.model, ...(req.backup ? [req.backup.model] : [])], deps.config, deps.modelEnv);
    const sessionId = newRootSessionId(req.name);
    const research = req.research ? startResearch(req.research, req.knowledge, req.net, req.generators) : null;
    // Recorded before the workflow starts, so the host finds it whenever it first asks.
    if (req.cwd) workspaces.record(sessionId, { dir: req.cwd, group: req.cwd, shared: [] });
    // The tier's mounts are the tree's, read from its root's record wherever its kernels run.
    if (research) workspaces.record(sessionId, { ...workspaces.of(sessionId), knowledge: research.knowledge });
    const net = research?.net ?? req.net;
    const auto = autonomousInput(req.autonomous, deps.config);
    const { policyFile: _file, ...approvals } = deps.config.approvals;
    const input: SessionInput = {
      sessionId,
      rootId: sessionId,
      parentId: null,
      name: 'root',
      task: req.task,
      model: req.model,
      ...(req.backup && { backup: req.backup }),
      depth: 0,
      workspace: workspaces.of(sessionId).dir,
      limits: {
        ...rootLimits(deps.config, { ...sandboxRecord(deps.config.sandbox), ...(net !== undefined && { net }) }),
        ...auto.limits,
        ...req.limits,
      },
      approvals: { ...approvals, ...(req.ci && { unattended: true }) },
      ...(req.goal && { goal: req.goal }),
      ...(auto.autonomous && { autonomous: auto.autonomous }),
      ...(req.retain && { retain: true }),
      ...(research && { research: research.spec }),
    };
    await deps.sessions.start(input);
    return ok({ sessionId, maxTurns: input.limits.maxTurns } satisfies StartSessionReply, 201);
  }

  async function sessionRoute(method: string, id: string, action: string | undefined, req: ApiRequest): Promise<ApiReply> {
    const sessionId = checkSessionId(id);
    const route = `${method} ${action ?? ''}`;
    switch (route) {
      case 'GET ':
        return ok(await deps.sessions.describe(sessionId));
      case 'GET log': {
        const after = parseCursor(req.query.get('after'));
        if (!after.ok) throw badRequest(after.reason);
        const limit = queryLimit(req.query, DEFAULT_LOG_PAGE, MAX_LOG_PAGE);
        return ok(pageLog(await deps.readLog(sessionId), after.cursor, limit));
      }
      case 'GET events':
        throw new HttpError(426, 'the event stream is a WebSocket: send an upgrade request', 'UpgradeRequiredError');
      case 'POST messages': {
        const { text } = parseSendMessage(req.body);
        const messageId = `user#${randomBytes(8).toString('hex')}`;
        await deps.sessions.deliverMessage(sessionId, { messageId, from: 'user', text });
        return ok({ messageId } satisfies SendMessageReply);
      }
      case 'POST goal': {
        const reply = await deps.sessions.goal(sessionId, parseGoalAction(req.body));
        if (!reply.ok) throw refusal(reply.reason);
        return ok({ goal: reply.goal });
      }
      case 'POST schedules': {
        const reply = await deps.sessions.schedule(sessionId, parseScheduleAction(req.body));
        if (!reply.ok) throw refusal(reply.reason);
        return ok({ schedules: reply.schedules });
      }
      case 'POST fork':
        return ok(await forkSession(deps, workspaces, sessionId, req.body), 201);
      case 'POST interrupt':
        return ok((await deps.sessions.interrupt(sessionId)) satisfies InterruptReply);
      case 'POST model': {
        const { model } = parseSwitchModel(req.body, deps.config.agent.scriptedDirs);
        return ok((await deps.sessions.switchModel(sessionId, model)) satisfies SwitchModelReply);
      }
      case 'POST compact':
        return ok((await deps.sessions.compact(sessionId)) satisfies CompactReply);
      case 'POST kill':
        await deps.sessions.cancel(sessionId);
        return ok({ sessionId, cancelRequested: true });
      default:
        throw notFound(`no route ${method} /v1/sessions/<id>${action ? `/${action}` : ''}`);
    }
  }

  return async (req) => {
    const [version, collection, id, action, ...rest] = req.segments;
    if (version !== 'v1') throw notFound(`no route ${req.method} /${req.segments.join('/')} (the API is under /v1)`);
    const viewer = viewerRoute(deps, req);
    if (viewer) return viewer;
    if (collection === 'health' && id === undefined && req.method === 'GET') {
      return ok({ ok: true, worker: deps.worker() } satisfies HealthReply);
    }
    if (collection === 'sessions' && id === undefined) {
      if (req.method === 'POST') return startSession(req.body);
      if (req.method === 'GET') return ok({ sessions: await deps.sessions.list(queryLimit(req.query, DEFAULT_LIST, MAX_LIST)) } satisfies ListSessionsReply);
    }
    if (collection === 'sessions' && id !== undefined && rest.length === 0) return sessionRoute(req.method, id, action, req);
    if (collection === 'approvals' && action === undefined) return approvalRoute(deps.sessions, req.method, id, req.body);
    throw notFound(`no route ${req.method} /${req.segments.join('/')}`);
  };
}

/** `?limit=` of a list or a page: absent gives the default, anything outside 1..max is a 400. */
function queryLimit(query: URLSearchParams, fallback: number, max: number): number {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  const n = raw.trim() === '' ? NaN : Number(raw);
  const range = { min: 1, max, integer: true };
  if (!inRange(range, n)) throw outOfRange('limit', range, raw);
  return n;
}
