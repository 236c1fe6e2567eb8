import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { HARNESS_PREFIX, sessionRoot } from '../../schemas/session-ids';
import { getHarnessQuery, type HarnessView } from '../../workflows/harness/harness-messages';
import type { HarnessClient } from '../../activities/harness/harness-client';
import type { HarnessScope } from '../../workflows/harness/harness-types';

/**
 * Harness scopes as Temporal workflows. Ids use `harness:`, never `/`, so a scope's log never
 * falls inside a session tree's id range (tree reads and audits see only sessions).
 */
export function createHarnessClient(client: Client, opts: { taskQueue: string; globalScope: string }): HarnessClient {
  const scopeId = (sessionId: string, scope: HarnessScope) =>
    HARNESS_PREFIX + (scope === 'global' ? opts.globalScope : sessionRoot(sessionId));
  const view = async (id: string): Promise<HarnessView> => {
    try {
      return await client.workflow.getHandle(id).query(getHarnessQuery);
    } catch (e) {
      if (e instanceof WorkflowNotFoundError) return { scopeId: id, entries: [], log: [] };
      throw e;
    }
  };
  return {
    scopeId,
    view,
    update: (id, def, arg, once = {}) => client.workflow.executeUpdateWithStart(def, {
      args: [arg],
      ...(once.updateId && { updateId: once.updateId }),
      startWorkflowOperation: new WithStartWorkflowOperation('harnessWorkflow', {
        workflowId: id, taskQueue: opts.taskQueue, args: [{ scopeId: id }], workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    }),
    async merged(sessionId) {
      const [global, session] = await Promise.all([view(scopeId(sessionId, 'global')), view(scopeId(sessionId, 'session'))]);
      return { global, session };
    },
  };
}
