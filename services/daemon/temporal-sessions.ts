import {
  WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, isGrpcServiceError,
  type Client, type WorkflowExecutionInfo, type WorkflowHandle,
} from '@temporalio/client';
import type { agentSessionWorkflow } from '../../workflows';
import { deliverMessageSignal, getChildrenQuery, getStatusQuery } from '../../workflows/messages';
import { goalUpdate, scheduleUpdate } from '../../workflows/long-run-messages';
import { compactNowUpdate, interruptCellUpdate, switchModelUpdate } from '../../workflows/operator-messages';
import { decideApprovalUpdate, getApprovalsQuery, type OpenApproval } from '../../workflows/approvals/approval-messages';
import type { SessionResult } from '../../workflows/session-types';
import type { SessionDetail, SessionSummary } from './api-types';
import { HttpError } from '../../errors';
import { notFound } from './http-error';
import type { SessionService } from './session-service';

export const SESSION_WORKFLOW_TYPE = 'agentSessionWorkflow';
/** Longest a Temporal call may hold an HTTP request. */
const CALL_DEADLINE_MS = 10_000;
/** A query needs a worker; without one it would wait out the whole call deadline. */
const QUERY_DEADLINE_MS = 3_000;

const iso = (d: Date | undefined): string | null => (d ? d.toISOString() : null);

function summary(info: Pick<WorkflowExecutionInfo, 'workflowId' | 'status' | 'startTime' | 'closeTime' | 'memo'>): SessionSummary {
  const phase = info.status.name === 'RUNNING' ? info.memo?.phase : undefined;
  const until = phase === 'throttled' ? Number(info.memo?.throttledUntil) : NaN;
  return {
    sessionId: info.workflowId, status: info.status.name.toLowerCase(), startTime: iso(info.startTime)!, closeTime: iso(info.closeTime),
    phase: phase === 'idle' || phase === 'unloaded' || phase === 'throttled' ? phase : null,
    ...(Number.isFinite(until) && { throttledUntil: new Date(until).toISOString() }),
  };
}

/** Maps Temporal's failures onto HTTP statuses; anything unexpected is rethrown as is (500). */
function translate(err: unknown, sessionId: string, running: boolean): never {
  if (err instanceof WorkflowNotFoundError) throw notFound(`no ${running ? 'running ' : ''}session ${sessionId}`);
  if (err instanceof WorkflowExecutionAlreadyStartedError) throw new HttpError(409, `session ${sessionId} already exists`, 'ConflictError');
  if (isGrpcServiceError(err) || (err as Error)?.name === 'ServiceError') {
    throw new HttpError(503, `Temporal is unreachable or refused the call: ${(err as Error).message}`, 'TemporalUnavailableError');
  }
  throw err;
}

export function createTemporalSessions(deps: { client: Client; taskQueue: string }): SessionService {
  const { client } = deps;
  const within = <T>(ms: number, fn: () => Promise<T>): Promise<T> => client.connection.withDeadline(Date.now() + ms, fn);
  /** `running`: the call needs a running session (signal, cancel), which is what a 404 then says. */
  const call = async <T>(sessionId: string, fn: () => Promise<T>, running = false): Promise<T> => {
    try {
      return await within(CALL_DEADLINE_MS, fn);
    } catch (err) {
      return translate(err, sessionId, running);
    }
  };
  const handle = (id: string): WorkflowHandle<typeof agentSessionWorkflow> => client.workflow.getHandle(id);

  /** One query after the other: a failed first one leaves no retried call running past the request (and the connection). */
  async function live(h: WorkflowHandle<typeof agentSessionWorkflow>): Promise<Pick<SessionDetail, 'live' | 'children' | 'queryError'>> {
    try {
      return await within(QUERY_DEADLINE_MS, async () => ({
        live: await h.query(getStatusQuery), children: await h.query(getChildrenQuery), queryError: null,
      }));
    } catch (err) {
      const cause = (err as Error).cause as Error | undefined;
      return { live: null, children: null, queryError: `no answer from a worker: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}` };
    }
  }

  return {
    start: (input) => call(input.sessionId, async () => {
      await client.workflow.start<typeof agentSessionWorkflow>(SESSION_WORKFLOW_TYPE, {
        workflowId: input.sessionId,
        taskQueue: deps.taskQueue,
        args: [input],
      });
    }),

    list: (limit) => call('', async () => {
      // Continue-as-new leaves one execution per run under the same id: keep the latest run.
      const latest = new Map<string, WorkflowExecutionInfo>();
      for await (const info of client.workflow.list({ query: `WorkflowType="${SESSION_WORKFLOW_TYPE}"` })) {
        const seen = latest.get(info.workflowId);
        if (!seen || info.startTime > seen.startTime) latest.set(info.workflowId, info);
        if (latest.size > limit) break;
      }
      return [...latest.values()].sort((a, b) => b.startTime.getTime() - a.startTime.getTime()).slice(0, limit).map(summary);
    }),

    describe: (sessionId) => call(sessionId, async () => {
      const h = handle(sessionId);
      const d = await h.describe();
      const running = d.status.name === 'RUNNING';
      const result = d.status.name === 'COMPLETED' ? await h.result().catch(() => null) as SessionResult | null : null;
      const view = running ? await live(h) : { live: null, children: null, queryError: null };
      return { ...summary(d), runId: d.runId, historyLength: d.historyLength, ...view, result };
    }),

    deliverMessage: (sessionId, message) => call(sessionId, () => handle(sessionId).signal(deliverMessageSignal, message), true),

    cancel: (sessionId) => call(sessionId, async () => {
      await handle(sessionId).cancel();
    }, true),

    interrupt: (sessionId) => call(sessionId, () => handle(sessionId).executeUpdate(interruptCellUpdate), true),
    switchModel: (sessionId, model) => call(sessionId, () => handle(sessionId).executeUpdate(switchModelUpdate, { args: [{ model }] }), true),
    compact: (sessionId) => call(sessionId, () => handle(sessionId).executeUpdate(compactNowUpdate), true),
    goal: (sessionId, req) => call(sessionId, () => handle(sessionId).executeUpdate(goalUpdate, { args: [req] }), true),
    schedule: (sessionId, req) => call(sessionId, () => handle(sessionId).executeUpdate(scheduleUpdate, { args: [req] }), true),
    decideApproval: (sessionId, d) => call(sessionId, () => handle(sessionId).executeUpdate(decideApprovalUpdate, { args: [d] }), true),

    approvals: () => call('', async () => {
      const open: OpenApproval[] = [];
      for await (const info of client.workflow.list({ query: `WorkflowType="${SESSION_WORKFLOW_TYPE}" AND ExecutionStatus="Running"` })) {
        const pending = await within(QUERY_DEADLINE_MS, () => handle(info.workflowId).query(getApprovalsQuery)).catch(() => []);
        open.push(...pending);
      }
      return open.sort((a, b) => a.requestedAt - b.requestedAt);
    }),
  };
}
