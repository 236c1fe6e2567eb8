import { condition } from '@temporalio/workflow';
import type { SessionState } from '../session-state';
import type { SessionResult } from '../session-types';
import { policyOf, requestApproval } from './approval-handlers';
import { endedByPolicy } from './policy-end';

/** Whether the policy puts changes to sensitive paths and git metadata to an operator. */
export const gatesOutsideChanges = (s: SessionState): boolean => policyOf(s).require.includes('sensitive-path');

/**
 * Before the next model call and before the session completes: changes the scans logged since the
 * last check to files that run outside Recur wait, durably, for an operator's yes when the policy
 * requires `sensitive-path`. A yes lets the session go on; a no ends it, the change left on disk
 * for the reviewer, flagged in the log.
 */
export async function awaitOutsideChangesApproval(s: SessionState): Promise<SessionResult | null> {
  // A cell's scan rides the next activity's batch: only once it is logged does it count.
  if (gatesOutsideChanges(s)) await s.flush();
  const changed = s.outsideChanges;
  if (changed.length === 0) return null;
  s.outsideChanges = [];
  if (!gatesOutsideChanges(s)) return null;
  const detail = `${changed.length} change(s) to files that run outside Recur: ${changed.join(', ')}`;
  const asked = await requestApproval(s, { kind: 'sensitive-path', detail, key: `sensitive-path@${s.nextSeq}` });
  const phase = s.phase;
  s.phase = 'approval';
  await condition(() => asked.id === null || s.approvals.answer(asked.id)?.status !== 'pending');
  s.phase = phase;
  const answer = asked.id === null ? asked : s.approvals.answer(asked.id)!;
  if (answer.status === 'approved' || answer.status === 'allowed') return null;
  return endedByPolicy(s) ?? { status: 'failed', kind: 'cancelled', reason: `changes to files that run outside Recur were ${answer.status} by ${answer.by}${answer.reason ? `: ${answer.reason}` : ''} (${changed.join(', ')})` };
}
