import type { HarnessClient } from './harness-client';
import { refineHarnessUpdate, type RefineReply } from '../../workflows/harness/harness-messages';

export interface RefineSessionInput {
  sessionId: string;
  /** Why the refine runs now, e.g. the auto-refine cadence that was reached. */
  reason: string;
}

/** A session asking for its own refine (auto-refine): one update to its tree's harness scope. */
export function createAutoRefineActivities(deps: { harness: HarnessClient; apply: 'auto' | 'approve' }) {
  return {
    async refineSession(input: RefineSessionInput): Promise<RefineReply> {
      return deps.harness.update(deps.harness.scopeId(input.sessionId, 'session'), refineHarnessUpdate, {
        sessionId: input.sessionId, model: '', instructions: input.reason, apply: deps.apply, source: 'refine', requestedBy: input.sessionId,
      });
    },
  };
}
