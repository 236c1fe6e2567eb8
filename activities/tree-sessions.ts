import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { reserveTreeSessionUpdate, type ReserveReply } from '../workflows/messages';

export interface TreeActivities {
  reserveTreeSession(input: { rootId: string; childId: string }): Promise<ReserveReply>;
}

/**
 * A tree's session count lives in its root's workflow, the one place every spawn in the tree can
 * reach; a workflow cannot send an update itself, so a spawning descendant asks through this
 * activity. The update id makes a retried attempt reserve once.
 */
export function createTreeActivities(deps: { client: Client }): TreeActivities {
  return {
    async reserveTreeSession({ rootId, childId }) {
      try {
        return await deps.client.workflow.getHandle(rootId).executeUpdate(reserveTreeSessionUpdate, {
          args: [{ childId }], updateId: `reserve:${childId}`,
        });
      } catch (e) {
        if (e instanceof WorkflowNotFoundError) return { ok: false, reason: `the tree's root ${rootId} has ended` };
        throw e;
      }
    },
  };
}
