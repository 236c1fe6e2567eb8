import type { SessionState } from '../session-state';
import type { SessionResult } from '../session-types';

/**
 * In CI mode, a request refused on a kind the policy ends the run on (approvals.ci `end`): the
 * requester heard the refusal at once, and the session ends at its next turn, or instead of
 * completing, as `approval_refused`, which `recur run --ci` exits 2 on.
 */
export function endedByPolicy(s: SessionState): SessionResult | null {
  const e = s.approvals.ended;
  return e === null ? null : { status: 'failed', kind: 'approval_refused', reason: e.reason };
}
