import type { Client } from '@temporalio/client';
import type { StoredEvent } from '../../schemas';
import { createEgressProxy, type EgressProxy } from '../sandbox';
import { recordConnectionUpdate } from '../../workflows/network-handlers';
import type { ApprovalGate } from './approval-gate';

/**
 * The egress proxy as a worker runs it: a session's policy is what its SessionStarted recorded
 * (read once from its log), a destination beyond it goes to the approval gate (kind `egress`, one
 * approval per host:port per session), and each decision is logged by the session's workflow.
 */
export function workerEgress(deps: {
  client: Client;
  approvals: ApprovalGate;
  readOwnLog(sessionId: string): Promise<readonly StoredEvent[]>;
  defaultNet: string;
}): EgressProxy {
  const policies = new Map<string, Promise<string>>();
  const policyOf = (sessionId: string) => {
    let p = policies.get(sessionId);
    if (!p) {
      p = deps.readOwnLog(sessionId).then((events) => {
        const started = events.find((e) => e.event.type === 'SessionStarted')?.event;
        return (started?.type === 'SessionStarted' && started.sandbox?.net) || deps.defaultNet;
      });
      p.catch(() => policies.delete(sessionId));
      policies.set(sessionId, p);
    }
    return p;
  };
  return createEgressProxy({
    policyOf,
    async approve(sessionId, detail, signal) {
      const a = await deps.approvals.await(sessionId, { kind: 'egress', detail }, `egress:${detail}`, signal);
      const decision = a.status === 'pending' ? 'refused' : a.status;
      const reason = a.status === 'pending' ? 'the kernel closed the connection while it waited for an operator' : a.reason ?? '';
      return { decision, approvalId: a.id, reason };
    },
    record: async (sessionId, c) => {
      await deps.client.workflow.getHandle(sessionId).executeUpdate(recordConnectionUpdate, { args: [c] });
    },
  });
}
