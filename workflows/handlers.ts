import { condition, getExternalWorkflowHandle, setHandler } from '@temporalio/workflow';
import { installApprovalHandlers } from './approvals/approval-handlers';
import { installNetworkHandlers } from './network-handlers';
import { resolveRecipient } from './check-family-scope';
import type { BlobRef } from '../schemas/generated/events';
import { answersCurrentTask, outcomeMessageId } from './decide-idle-unload';
import { guardSignal, guardUpdate } from './guard-handler';
import { recordHarnessEditsUpdate } from './harness/harness-messages';
import {
  childFinishedSignal, deleteChildUpdate, deliverMessageSignal, getChildrenQuery, getStatusQuery, recordGitUpdate, recordMergeUpdate, reserveTreeSessionUpdate,
  sendAgentMessageUpdate, setFinalUpdate, spawnChildUpdate, takeMessagesUpdate, unloadIdleSignal, type SendReply,
} from './messages';
import { spendMessage } from './message-rate';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import { sessionStatus } from './session-status';
import type { ChildOutcome } from './child-types';
import type { SessionInput } from './session-types';
import { reserveTreeSession, spawn } from './spawn-child';
import { installTreeBudgetHandler } from './tree-budget';

/** Longest a single takeMessages call waits in the workflow; the kernel side loops for longer waits. */
const MAX_TAKE_WAIT_MS = 20_000;

/**
 * Handlers for what reaches a session while its loop runs: requests from its own kernel
 * (spawn, send, take, final, delete), facts from other sessions (messages, child outcomes),
 * and read-only queries. Each logs what it did before it returns, and changes state only once
 * that is logged (SessionLog.emit's commit); a handler that fails ends the session (guard-handler.ts).
 */
export function installHandlers(
  s: SessionState, childWorkflow: (input: SessionInput) => Promise<unknown>, acts: ReturnType<typeof sessionActivities>,
): void {
  setHandler(getStatusQuery, () => sessionStatus(s));
  setHandler(getChildrenQuery, () => [...s.children.values()]);

  setHandler(deliverMessageSignal, (m) => {
    // Delivered at the next prompt: steps the worker runs stop for it.
    void s.settleSteps();
    s.accept(m);
    // A new task reaching a retained child mid-work is seen in this round's prompt: this round answers it.
    if (m.task && s.retained && !s.retained.idle) s.retained.taskMessageId = m.messageId;
  });

  // Only a retained session idling with its kernel loaded has something to give back (workflows/retain.ts).
  setHandler(unloadIdleSignal, () => {
    if (s.retained?.idle && s.retained.unloadedSeq === null) s.retained.unloadAsked = true;
  });

  installApprovalHandlers(s);
  installNetworkHandlers(s);
  setHandler(childFinishedSignal, guardSignal(s, (outcome) => childFinished(s, outcome)));
  setHandler(spawnChildUpdate, guardUpdate(s, (req) => spawn(s, req, childWorkflow, acts)));
  setHandler(sendAgentMessageUpdate, guardUpdate(s, ({ to, text, textBlob = null }) => send(s, to, text, textBlob)));
  if (s.input.parentId === null) setHandler(reserveTreeSessionUpdate, ({ childId, slice }) => reserveTreeSession(s, childId, slice ?? null));
  installTreeBudgetHandler(s);

  setHandler(takeMessagesUpdate, guardUpdate(s, async ({ waitMs, max }) => {
    if (waitMs > 0) await condition(() => s.inbox.length > 0, Math.min(waitMs, MAX_TAKE_WAIT_MS));
    return s.deliver('kernel', max ?? undefined);
  }));

  setHandler(recordMergeUpdate, guardUpdate(s, async (m) => {
    await s.emit(() => [{ type: 'WorkspaceMerged', ...m }]);
  }));

  setHandler(recordGitUpdate, guardUpdate(s, async (g) => {
    await s.emit(() => [{ type: 'GitOperation', ...g }]);
  }));

  setHandler(recordHarnessEditsUpdate, guardUpdate(s, async ({ op, editIds }) => {
    await s.emit(() => [{ type: 'HarnessEditRequested', op, editIds }]);
  }));

  // Logged with the answer's end event (SessionCompleted or TaskEnded) once the cell that set it is logged.
  setHandler(setFinalUpdate, async ({ answer, answerBlob = null }) => {
    // The cell that set it is the session's last: steps the worker runs stop with it still running,
    // before the kernel hears back, so they never go on to another model call.
    if (s.stepsInFlight) await s.settleSteps();
    s.final = { answer, answerBlob };
  });

  setHandler(deleteChildUpdate, guardUpdate(s, async ({ name }) => {
    const child = s.children.get(name);
    if (!child) return { ok: false, reason: `no child named "${name}"` };
    // A completed child is retained (workflows/retain.ts): deleting it ends it too. One that ended meanwhile needs nothing.
    if (child.status === 'running' || child.status === 'completed') await getExternalWorkflowHandle(child.id).cancel().catch(() => undefined);
    return { ok: true };
  }));
}

async function childFinished(s: SessionState, outcome: ChildOutcome): Promise<void> {
  const child = s.children.get(outcome.name);
  const answerBlob = outcome.answerBlob ?? null;
  let current = false;
  await s.emit(() => {
    // Decided in turn with other appends: a retask being logged has marked the child running by now.
    current = !!child && answersCurrentTask(child, outcome);
    return current && child ? [{
      type: 'SubagentCompleted', childId: child.id, status: outcome.status, answer: outcome.answer ?? '', answerBlob, error: outcome.error,
    }] : [];
  }, () => {
    if (!current || !child) return;
    // A goal's budgets count what the children spent too, as each reports it (its tree's total so far).
    if (outcome.spent) s.long.recordChildSpend(outcome.spent, child.spent);
    Object.assign(child, { status: outcome.status, answer: outcome.answer, answerBlob, error: outcome.error, spent: outcome.spent ?? child.spent });
    if (outcome.endsRun) s.approvals.ended ??= { id: child.id, reason: `sub-agent ${outcome.name} was ended by the approval policy: ${outcome.error ?? ''}` };
    const text = outcome.status === 'completed'
      ? `[answer from ${outcome.name}] ${outcome.answer ?? ''}`
      : `[${outcome.name} ${outcome.status}] ${outcome.error ?? ''}`;
    s.accept({ messageId: outcomeMessageId(child.id, outcome.round), from: child.id, text, textBlob: answerBlob });
  });
}

/**
 * Sends in turn with every append, so this sender's message numbers reach each recipient in
 * order (recipients dedupe by the highest number seen) and the counter and allowance advance
 * only with a logged MessageSent.
 */
function send(s: SessionState, to: string, text: string, textBlob: BlobRef | null): Promise<SendReply> {
  let reply: SendReply = { ok: false, reason: 'not sent' };
  let spent: ReturnType<typeof spendMessage> | null = null;
  return s.emit(async () => {
    const refuse = (reason: string, limit = false) => {
      reply = { ok: false, reason, limit };
      return [{ type: 'MessageRefused' as const, from: s.id, to, reason }];
    };
    const target = resolveRecipient(s.id, to, [...s.children.keys()]);
    if (!target.ok) return refuse(target.reason);
    spent = spendMessage(s.rate, { perMinute: s.input.limits.messagesPerMinute, burst: s.input.limits.messageBurst }, Date.now());
    if ('refused' in spent) return refuse(spent.refused, true);
    const messageId = `${s.id}#m${s.messagesSent + 1}`;
    try {
      await getExternalWorkflowHandle(target.targetId).signal(deliverMessageSignal, { messageId, from: s.id, text, textBlob });
    } catch {
      return refuse(`${target.targetId} does not exist or has ended`);
    }
    reply = { ok: true, messageId, to: target.targetId };
    return [{ type: 'MessageSent' as const, messageId, from: s.id, to: target.targetId, text, textBlob }];
  }, () => {
    if (!reply.ok || !spent || !('bucket' in spent)) return;
    s.messagesSent++;
    s.rate = spent.bucket;
  }).then(() => reply);
}
