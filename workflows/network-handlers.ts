/*
 * Connections the host's egress proxy decided for this session's kernel, each logged as a
 * NetworkConnection before the proxy lets a byte through (or answers the refusal).
 */
import { defineUpdate, setHandler } from '@temporalio/workflow';
import type { NetworkConnection } from '../schemas/generated/events';
import { FIELD_LIMITS, clipText } from '../schemas/field-limits';
import { guardUpdate } from './guard-handler';
import type { SessionState } from './session-state';

export type ConnectionRecord = Omit<NetworkConnection, 'type'>;

export const recordConnectionUpdate = defineUpdate<void, [ConnectionRecord]>('recordConnection');

export function installNetworkHandlers(s: SessionState): void {
  const limits = FIELD_LIMITS.NetworkConnection;
  setHandler(recordConnectionUpdate, guardUpdate(s, async (c) => {
    await s.emit(() => [{
      type: 'NetworkConnection' as const,
      host: clipText(c.host, limits.host), port: c.port, address: c.address === null ? null : clipText(c.address, limits.address),
      decision: c.decision, policy: clipText(c.policy, limits.policy),
      approvalId: c.approvalId === null ? null : clipText(c.approvalId, limits.approvalId), reason: clipText(c.reason, limits.reason),
    }], () => undefined);
  }));
}
