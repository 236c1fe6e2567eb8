import type { InboxMessage, SessionInput } from '../../workflows/session-types';
import type { SessionDetail, SessionSummary } from './api-types';
import type { GoalReply, GoalRequest, ScheduleReply, ScheduleRequest } from '../../workflows/long-run-messages';
import type { ApprovalDecision, DecideReply, OpenApproval } from '../../workflows/approvals/approval-messages';

/**
 * What the routes need from Temporal. Implementations throw HttpError (404 for an unknown
 * or ended session, 409 for an id in use, 503 when Temporal is unreachable).
 */
export interface SessionService {
  start(input: SessionInput): Promise<void>;
  list(limit: number): Promise<SessionSummary[]>;
  describe(sessionId: string): Promise<SessionDetail>;
  /** Delivers to a running session only. */
  deliverMessage(sessionId: string, message: InboxMessage): Promise<void>;
  /** Requests cancellation; the workflow logs SessionFailed kind cancelled and stops its children. */
  cancel(sessionId: string): Promise<void>;
  /** Interrupts the running cell of a running session; the session goes on (workflows/operator-handlers.ts). */
  interrupt(sessionId: string): Promise<{ interrupted: boolean }>;
  /** Switches a running session's model for its next calls (logged as ModelSwitched); the spec is checked already. */
  switchModel(sessionId: string, model: string): Promise<{ model: string }>;
  /** Asks a running session to compact at its next model call. */
  compact(sessionId: string): Promise<{ requested: true }>;
  /** A goal request to a running session, as an operator; the workflow decides and logs. */
  goal(sessionId: string, req: GoalRequest): Promise<GoalReply>;
  schedule(sessionId: string, req: ScheduleRequest): Promise<ScheduleReply>;
  /** Open approvals of every running session, oldest first; a session whose worker does not answer is left out. */
  approvals(): Promise<OpenApproval[]>;
  /** An operator's answer to one approval of a running session; the workflow decides whether it was still open and logs. */
  decideApproval(sessionId: string, decision: ApprovalDecision): Promise<DecideReply>;
}
