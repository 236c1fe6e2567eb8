import type { Client } from '@temporalio/client';
import { ScopeError } from '../../errors';
import { goalUpdate, scheduleUpdate, type GoalRequest, type ScheduleRequest } from '../../workflows/long-run-messages';
import type { HostBridge } from '../host-bridge';
import { HARD, INLINE, previewNamingBlob } from '../../schemas/field-limits';
import { withinLimit, type BridgeValues } from './bridge-values';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const budget = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The kernel's goal request, from the bridge's JSON args. GoalChanged has no BlobRef field, so
 * long evidence is offloaded (`evidence`) and its preview names the blob; an objective, shown in
 * every prompt, has a hard limit.
 */
export function goalRequest(op: string, args: Record<string, unknown>, evidence = ''): GoalRequest {
  const by = 'agent';
  switch (op) {
    case 'goal.create':
      return {
        by,
        action: 'create',
        spec: {
          objective: withinLimit('goal.create(objective)', str(args.objective) ?? '', HARD.objective), openEnded: args.open_ended === true,
          tokenBudget: budget(args.token_budget), secondsBudget: budget(args.seconds_budget), costBudgetUsd: budget(args.cost_budget_usd),
        },
      };
    case 'goal.complete':
      return { by, action: 'complete', evidence };
    default:
      return { by, action: op.slice('goal.'.length) as 'get' | 'pause' | 'resume' | 'clear' };
  }
}

export function scheduleRequest(op: string, args: Record<string, unknown>): ScheduleRequest {
  if (op === 'schedule.add') {
    return {
      action: 'add',
      spec: withinLimit('schedule.add(spec)', str(args.spec) ?? '', HARD.scheduleSpec),
      instruction: withinLimit('schedule.add(instruction)', str(args.instruction) ?? '', HARD.instruction),
    };
  }
  if (op === 'schedule.cancel') return { action: 'cancel', id: withinLimit('schedule.cancel(id)', str(args.id) ?? '', HARD.name) };
  return { action: 'list' };
}

/**
 * `goal.*` and `schedule.*` from a kernel, as updates on the caller's own session workflow, which
 * decides and logs; a refusal (an open-ended goal's completion, a bad spec) raises in the kernel.
 */
export function registerLongRunOps(bridge: HostBridge, client: Client, values: BridgeValues): void {
  const session = (id: string) => client.workflow.getHandle(id);
  for (const op of ['goal.get', 'goal.create', 'goal.complete', 'goal.pause', 'goal.resume', 'goal.clear']) {
    bridge.handle(op, async (sessionId, args, { rid }) => {
      const evidence = op === 'goal.complete' ? await values.offload(str(args.evidence) ?? '', INLINE.evidence) : null;
      const reply = await session(sessionId).executeUpdate(goalUpdate, {
        args: [goalRequest(op, args, evidence ? previewNamingBlob(evidence.preview, evidence.blob, INLINE.evidence) : '')], ...(rid && { updateId: `${op}-${rid}` }),
      });
      if (!reply.ok) throw new ScopeError(reply.reason);
      return reply.goal;
    });
  }
  for (const op of ['schedule.add', 'schedule.list', 'schedule.cancel']) {
    bridge.handle(op, async (sessionId, args, { rid }) => {
      const reply = await session(sessionId).executeUpdate(scheduleUpdate, {
        args: [scheduleRequest(op, args)], ...(rid && { updateId: `${op}-${rid}` }),
      });
      if (!reply.ok) throw new ScopeError(reply.reason);
      return reply.schedules;
    });
  }
}
