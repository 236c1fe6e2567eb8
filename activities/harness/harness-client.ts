import type { UpdateDefinition } from '@temporalio/common';
import type { HarnessView } from '../../workflows/harness/harness-messages';
import type { HarnessScope } from '../../workflows/harness/harness-types';

/** The harness scopes' workflows as the worker reaches them (services/worker/harness-client.ts makes one over a Temporal client). */
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
