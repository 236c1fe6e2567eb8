import { WithStartWorkflowOperation, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { UpdateDefinition } from '@temporalio/common';
import { HARNESS_PREFIX, sessionRoot } from '../../schemas/session-ids';
import { getHarnessQuery, type HarnessView } from '../../workflows/harness/harness-messages';
import type { HarnessScope } from '../../workflows/harness/harness-types';

export interface HarnessClient {
  /** The scope's workflow (and log) id: `harness:<rootId>` for a session's tree, `harness:<global name>`. */
  scopeId(sessionId: string, scope: HarnessScope): string;
  /**
   * Sends an update to the scope, starting its workflow if it has none yet. `updateId` (a kernel
   * call's rid) makes a repeat of the same call, after a worker restart, get the first answer.
   */
  update<Ret, Arg>(scopeId: string, def: UpdateDefinition<Ret, [Arg]>, arg: Arg, once?: { updateId?: string }): Promise<Ret>;
  /** The scope's current state; empty when nothing was ever edited there. */
  view(scopeId: string): Promise<HarnessView>;
  /** Both scopes a session sees; session entries shadow global ones of the same kind and name. */
  merged(sessionId: string): Promise<{ global: HarnessView; session: HarnessView }>;
}

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
