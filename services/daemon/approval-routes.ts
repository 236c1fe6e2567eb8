import type { ApprovalDecision } from '../../workflows/approvals/approval-messages';
import { sessionParent } from '../../schemas/session-ids';
import type { ApprovalsReply, DecideApprovalReply } from './api-types';
import { HttpError } from '../../errors';
import { badRequest, notFound } from './http-error';
import { checkSessionId } from './parse-requests';
import type { SessionService } from './session-service';

const MAX_REASON_CHARS = 2000;
const MAX_BY_CHARS = 256;

/** An approval id is its ApprovalRequested eventId, `<session id>/<seq>`: the session is its prefix. */
export function approvalSession(id: string): string {
  const session = sessionParent(id);
  if (session === null || !/^\d+$/.test(id.slice(session.length + 1))) throw badRequest(`"${id.slice(0, 80)}" is not an approval id (<session id>/<seq>)`);
  return checkSessionId(session);
}

/** The body of POST /v1/approvals/<id>: `{decision: approve|deny, by, reason?}`. */
export function parseDecision(id: string, body: unknown): ApprovalDecision {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  if (b.decision !== 'approve' && b.decision !== 'deny') throw badRequest('decision must be "approve" or "deny"');
  const by = typeof b.by === 'string' && b.by.trim() !== '' ? b.by.trim() : 'operator';
  const reason = b.reason === undefined || b.reason === null ? '' : b.reason;
  if (typeof reason !== 'string') throw badRequest('reason must be a string');
  if (by.length > MAX_BY_CHARS) throw badRequest(`by is ${by.length} characters; the limit is ${MAX_BY_CHARS}`);
  if (reason.length > MAX_REASON_CHARS) throw badRequest(`reason is ${reason.length} characters; the limit is ${MAX_REASON_CHARS}`);
  return { id, decision: b.decision === 'approve' ? 'approved' : 'denied', by, reason };
}

/**
 * `GET /v1/approvals` lists the open approvals of every running session; `POST /v1/approvals/<id>`
 * answers one through its session's workflow, which logs ApprovalDecided (409 when it was decided already).
 */
export async function approvalRoute(sessions: SessionService, method: string, id: string | undefined, body: unknown) {
  if (id === undefined && method === 'GET') return { status: 200, body: { approvals: await sessions.approvals() } satisfies ApprovalsReply };
  if (id === undefined || method !== 'POST') throw notFound(`no route ${method} /v1/approvals${id ? '/<id>' : ''}`);
  const sessionId = approvalSession(id);
  const reply = await sessions.decideApproval(sessionId, parseDecision(id, body));
  if (!reply.ok) throw new HttpError(409, reply.reason, 'ConflictError');
  return { status: 200, body: { approval: reply.answer } satisfies DecideApprovalReply };
}
