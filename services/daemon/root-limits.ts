import type { RecurConfig } from '../../config';
import type { SandboxPolicy } from '../../schemas/generated/events';
import type { SessionLimits } from '../../workflows/session-types';

/** A daemon-started root's limits from the configuration, before the request's own; `sandbox`: the policy its kernel runs under. */
export function rootLimits(config: RecurConfig, sandbox: SandboxPolicy): SessionLimits {
  const { agent } = config;
  return {
    maxTurns: agent.maxTurns,
    maxTokens: null,
    maxSeconds: null,
    cellTimeoutSeconds: agent.cellTimeoutSeconds,
    maxDepth: agent.maxDepth,
    turnsPerRun: agent.turnsPerRun,
    snapshotEveryCells: agent.snapshotEveryCells,
    idleUnloadSeconds: agent.idleUnloadSeconds,
    autoRefineTurns: config.harness.autoRefineTurns,
    compactAtTokens: agent.compactAtTokens,
    maxChildren: agent.maxChildren,
    maxTreeSessions: agent.maxTreeSessions,
    messagesPerMinute: agent.messagesPerMinute,
    messageBurst: agent.messageBurst,
    sandbox,
  };
}
