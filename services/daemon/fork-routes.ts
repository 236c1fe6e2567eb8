import { randomBytes } from 'node:crypto';
import { checkForkPoint } from '../../activities/fork/plan-fork';
import type { StoredEvent } from '../../schemas';
import type { Workspaces } from '../sandbox/workspace-binding';
import { sandboxRecord } from '../sandbox/sandbox-record';
import type { SessionInput, SessionLimits } from '../../workflows/session-types';
import type { ForkSessionReply, ForkSessionRequest, TreeLog } from './api-types';
import { HttpError } from '../../errors';
import { badRequest, notFound } from './http-error';
import { MAX_TEXT_CHARS, checkModel, newRootSessionId } from './parse-requests';
import { rootLimits } from './root-limits';
import type { RouteDeps } from './route-types';
import { parseWorkspace } from './workspace-input';

/** Validates the body of `POST /v1/sessions/:id/fork`; throws a 400 naming the first problem. */
export function parseFork(body: unknown, scriptedDirs: readonly string[], home: string): ForkSessionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => !['at', 'instruction', 'model', 'cwd', 'retain'].includes(k));
  if (unknown.length) throw badRequest(`unknown field(s): ${unknown.join(', ')}`);
  if (typeof b.at !== 'number' || !Number.isInteger(b.at) || b.at < 0) throw badRequest(`at must be a seq (an integer from 0), got ${JSON.stringify(b.at) ?? 'nothing'}`);
  const req: ForkSessionRequest = { at: b.at };
  if (b.instruction !== undefined) {
    if (typeof b.instruction !== 'string' || b.instruction.trim() === '') throw badRequest('instruction must be a non-empty string');
    if (b.instruction.length > MAX_TEXT_CHARS) throw badRequest(`instruction is ${b.instruction.length} characters; the limit is ${MAX_TEXT_CHARS}`);
    req.instruction = b.instruction;
  }
  if (b.model !== undefined) {
    if (typeof b.model !== 'string' || b.model.trim() === '') throw badRequest('model must be a non-empty string');
    req.model = checkModel(b.model, scriptedDirs);
  }
  if (b.cwd !== undefined) req.cwd = parseWorkspace(b.cwd, home);
  if (b.retain !== undefined && typeof b.retain !== 'boolean') throw badRequest('retain must be true or false');
  if (b.retain === false) req.retain = false;
  return req;
}

/** The tree budget the origin logged up to the fork point (its last tree BudgetSet), as limits; none without one. */
export function budgetAt(copied: readonly StoredEvent[]): Partial<SessionLimits> {
  const set = copied.filter((e) => e.event.type === 'BudgetSet' && e.event.scope === 'tree').at(-1)?.event;
  if (set?.type !== 'BudgetSet') return {};
  return { maxTokens: set.tokens, maxCostUsd: set.costUsd, maxSeconds: set.seconds, maxTreeTurns: set.turns };
}

const ownEventId = (originId: string) => new RegExp(`^${originId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\d+$`);

/** The origin's own events, refused when the log reader could not use some of its records. */
function originEvents(log: TreeLog, originId: string): StoredEvent[] {
  const own = log.events.filter((e) => e.sessionId === originId);
  if (own.length === 0) throw notFound(`no session ${originId} in the log`);
  const isOwn = ownEventId(originId);
  const problem = log.problems.find((p) => p.key === originId || (p.eventId !== undefined && isOwn.test(p.eventId)));
  if (problem) throw new HttpError(409, `the log of ${originId} has a record that cannot be used (${problem.reason}); see recur audit verify ${originId}`, 'LogDamagedError');
  return own.sort((a, b) => a.seq - b.seq);
}

/**
 * Starts a fork of a root session: checks the fork point against the origin's log (so a bad seq
 * is answered here, with the valid range), then starts the fork's workflow, which copies the
 * history itself (activities/fork); nothing of the log rides in the workflow's input.
 */
export async function forkSession(deps: RouteDeps, workspaces: Workspaces, originId: string, body: unknown): Promise<ForkSessionReply> {
  const { config } = deps;
  const req = parseFork(body, config.agent.scriptedDirs, config.home);
  const events = originEvents(await deps.readLog(originId), originId);
  const check = checkForkPoint(events, originId, req.at);
  if (!check.ok) {
    if (check.kind === 'damaged') throw new HttpError(409, check.reason, 'LogDamagedError');
    if (check.kind === 'not-root') throw badRequest(check.reason);
    if (check.kind === 'range' || check.kind === 'mid-step') throw new HttpError(400, check.reason, 'BadRequestError', { field: 'at', allowed: `${check.valid.min}..${check.valid.max}` });
  }
  const started = events[0].event;
  if (started.type !== 'SessionStarted') throw new HttpError(409, `the log of ${originId} does not begin with SessionStarted`, 'LogDamagedError');
  const sessionId = newRootSessionId('fork');
  if (req.cwd) workspaces.record(sessionId, { dir: req.cwd, group: req.cwd, shared: [] });
  const { policyFile: _file, ...approvals } = config.approvals;
  const instruction = req.instruction === undefined ? null : { messageId: `user#${randomBytes(8).toString('hex')}`, from: 'user', text: req.instruction };
  const input: SessionInput = {
    sessionId, rootId: sessionId, parentId: null, name: 'root', task: started.task, taskBlob: started.taskBlob, model: req.model ?? started.model,
    depth: 0, workspace: workspaces.of(sessionId).dir, approvals,
    // What the origin logged about itself holds in the fork too: its turn cap, cell timeout, depth, sandbox and tree budget.
    limits: {
      ...rootLimits(config, started.sandbox ?? sandboxRecord(config.sandbox)),
      maxTurns: started.maxTurns, cellTimeoutSeconds: started.cellTimeoutSeconds, maxDepth: started.maxDepth,
      ...budgetAt(events.slice(0, req.at + 1)),
    },
    fork: { originId, atSeq: req.at, instruction },
    ...(req.retain !== false && { retain: true }),
  };
  await deps.sessions.start(input);
  return { sessionId, forkedFrom: { sessionId: originId, seq: req.at, hash: events[req.at].hash }, maxTurns: input.limits.maxTurns };
}
