import { condition } from '@temporalio/workflow';
import type { SessionState } from '../session-state';
import type { SessionResult } from '../session-types';
import { policyOf, requestApproval } from './approval-handlers';
import { endedByPolicy } from './policy-end';
import { decideSpend } from './approval-policy';
import { treeSpend } from './tree-spend';

/**
 * Before a model call: past the policy's spending threshold the session waits, durably, for an
 * operator's yes (`recur approve`). A yes moves the mark; a no ends the session as a budget stop.
 */
export async function awaitSpendApproval(s: SessionState): Promise<SessionResult | null> {
  const spent = treeSpend(s);
  const detail = decideSpend(policyOf(s), spent, s.approvals.spendMark);
  if (detail === null) return null;
  const asked = await requestApproval(s, { kind: 'spend', detail, key: `spend@${spent.tokens}/${spent.costUsd}` });
  const phase = s.phase;
  s.phase = 'approval';
  await condition(() => asked.id === null || s.approvals.answer(asked.id)?.status !== 'pending');
  s.phase = phase;
  const answer = asked.id === null ? asked : s.approvals.answer(asked.id)!;
  if (answer.status === 'approved' || answer.status === 'allowed') {
    s.approvals.spendMark = spent;
    return null;
  }
  return endedByPolicy(s) ?? { status: 'failed', kind: 'budget', reason: `spending past the approval threshold was ${answer.status} by ${answer.by}${answer.reason ? `: ${answer.reason}` : ''} (${detail})` };
}
