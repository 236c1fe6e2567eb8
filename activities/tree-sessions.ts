import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { SessionActivities, TreeAsk } from './session-activities';
import { chargeTreeBudgetUpdate, reserveTreeSessionUpdate, type TreeBudgetReply } from '../workflows/messages';

/** The worker wraps `chargeTreeBudget` so that an ask may carry a batch of the asker's events (appendFirst). */
export type TreeActivities = Pick<SessionActivities, 'reserveTreeSession'> & { chargeTreeBudget(input: TreeAsk): Promise<TreeBudgetReply> };

/**
 * A tree's session count and spend live in its root's workflow, the one place every session in
 * the tree can reach; a workflow cannot send an update itself, so a descendant asks through these
 * activities. The update id makes a retried attempt count once; a retry that lands on the root's
 * next run (continue-as-new) repeats a cumulative report, which changes nothing.
 */
export function createTreeActivities(deps: { client: Client }): TreeActivities {
  return {
    async reserveTreeSession({ rootId, childId, slice = null }) {
      try {
        return await deps.client.workflow.getHandle(rootId).executeUpdate(reserveTreeSessionUpdate, {
          args: [{ childId, slice }], updateId: `reserve:${childId}`,
        });
      } catch (e) {
        if (e instanceof WorkflowNotFoundError) return { ok: false, reason: `the tree's root ${rootId} has ended` };
        throw e;
      }
    },
    async chargeTreeBudget({ rootId, callIndex, ...report }) {
      try {
        return await deps.client.workflow.getHandle(rootId).executeUpdate(chargeTreeBudgetUpdate, {
          args: [report], updateId: `budget:${report.sessionId}:${callIndex}:${report.want}`,
        });
      } catch (e) {
        if (e instanceof WorkflowNotFoundError) return { ok: false, scope: 'tree', reason: `the tree's root ${rootId} has ended` };
        throw e;
      }
    },
  };
}
