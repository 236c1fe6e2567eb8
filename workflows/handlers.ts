import {
  ParentClosePolicy, condition, getExternalWorkflowHandle, setHandler, startChild,
} from '@temporalio/workflow';
import { checkAgentName, checkChildId, resolveRecipient } from './check-family-scope';
import { answersCurrentTask, outcomeMessageId } from './decide-idle-unload';
import {
  childFinishedSignal, deleteChildUpdate, deliverMessageSignal, getChildrenQuery, getStatusQuery,
  sendAgentMessageUpdate, setFinalUpdate, spawnChildUpdate, takeMessagesUpdate,
  type SpawnReply, type SpawnRequest,
} from './messages';
import { retask } from './retain';
import { recordHarnessEditsUpdate } from './harness/harness-messages';
import type { SessionState } from './session-state';
import type { ChildInfo, SessionInput } from './session-types';

/** Longest a single takeMessages call waits in the workflow; the kernel side loops for longer waits. */
const MAX_TAKE_WAIT_MS = 20_000;

/**
 * Handlers for what reaches a session while its loop runs: requests from its own kernel
 * (spawn, send, take, final, delete), facts from other sessions (messages, child outcomes),
 * and read-only queries. Each logs what it did before it returns.
 */
export function installHandlers(s: SessionState, childWorkflow: (input: SessionInput) => Promise<unknown>): void {
  setHandler(getStatusQuery, () => s.status());
  setHandler(getChildrenQuery, () => [...s.children.values()]);

  setHandler(deliverMessageSignal, (m) => {
    s.accept(m);
    // A new task reaching a retained child mid-work is seen in this round's prompt: this round answers it.
    if (m.task && s.retained && !s.retained.idle) s.retained.taskMessageId = m.messageId;
  });

  setHandler(childFinishedSignal, async (outcome) => {
    const child = s.children.get(outcome.name);
    if (!child || !answersCurrentTask(child, outcome)) return;
    const answerBlob = outcome.answerBlob ?? null;
    Object.assign(child, { status: outcome.status, answer: outcome.answer, answerBlob, error: outcome.error });
    await s.emit(() => [{
      type: 'SubagentCompleted', childId: child.id, status: outcome.status,
      answer: outcome.answer ?? '', answerBlob, error: outcome.error,
    }]);
    const text = outcome.status === 'completed'
      ? `[answer from ${outcome.name}] ${outcome.answer ?? ''}`
      : `[${outcome.name} ${outcome.status}] ${outcome.error ?? ''}`;
    s.accept({ messageId: outcomeMessageId(child.id, outcome.round), from: child.id, text, textBlob: answerBlob });
  });

  setHandler(spawnChildUpdate, (req) => spawn(s, req, childWorkflow));

  setHandler(sendAgentMessageUpdate, async ({ to, text, textBlob = null }) => {
    const target = resolveRecipient(s.id, to, [...s.children.keys()]);
    const refuse = async (reason: string) => {
      await s.emit(() => [{ type: 'MessageRefused', from: s.id, to, reason }]);
      return { ok: false as const, reason };
    };
    if (!target.ok) return refuse(target.reason);
    const messageId = `${s.id}#m${++s.messagesSent}`;
    try {
      await getExternalWorkflowHandle(target.targetId).signal(deliverMessageSignal, { messageId, from: s.id, text, textBlob });
    } catch {
      return refuse(`${target.targetId} does not exist or has ended`);
    }
    await s.emit(() => [{ type: 'MessageSent', messageId, from: s.id, to: target.targetId, text, textBlob }]);
    return { ok: true as const, messageId, to: target.targetId };
  });

  setHandler(takeMessagesUpdate, async ({ waitMs, max }) => {
    if (waitMs > 0) await condition(() => s.inbox.length > 0, Math.min(waitMs, MAX_TAKE_WAIT_MS));
    return s.deliver('kernel', max ?? undefined);
  });

  setHandler(recordHarnessEditsUpdate, async ({ op, editIds }) => {
    await s.emit(() => [{ type: 'HarnessEditRequested', op, editIds }]);
  });

  setHandler(setFinalUpdate, ({ answer, answerBlob = null }) => {
    s.final = { answer, answerBlob };
  });

  setHandler(deleteChildUpdate, async ({ name }) => {
    const child = s.children.get(name);
    if (!child) return { ok: false, reason: `no child named "${name}"` };
    if (child.status === 'running') await getExternalWorkflowHandle(child.id).cancel();
    // A completed child is retained (workflows/retain.ts): deleting it ends it too, if it has not ended already.
    else if (child.status === 'completed') await getExternalWorkflowHandle(child.id).cancel().catch(() => undefined);
    return { ok: true };
  });
}

async function spawn(
  s: SessionState,
  req: SpawnRequest,
  childWorkflow: (input: SessionInput) => Promise<unknown>,
): Promise<SpawnReply> {
  const { input } = s;
  const name = req.name ?? `agent-${s.children.size + 1}`;
  const bad = checkAgentName(name);
  if (bad) return { ok: false, reason: bad };
  const existing = s.children.get(name);
  const taskBlob = req.taskBlob ?? null;
  const sameTask = (c: ChildInfo) => c.task === req.task && (c.taskBlob?.sha256 ?? null) === (taskBlob?.sha256 ?? null);
  if (existing) return sameTask(existing) ? { ok: true, childId: existing.id, name } : retask(s, existing, req);
  if (input.depth + 1 > input.limits.maxDepth) {
    return { ok: false, reason: `depth limit ${input.limits.maxDepth} reached: ${s.id} is at depth ${input.depth} and cannot spawn (raise RECUR_MAX_DEPTH)` };
  }
  const childId = `${s.id}/${name}`;
  const tooLong = checkChildId(childId);
  if (tooLong) return { ok: false, reason: tooLong };
  const model = req.model ?? input.model;
  s.children.set(name, { name, id: childId, task: req.task, taskBlob, model, status: 'running', answer: null, error: null });
  await s.emit(() => [{
    type: 'SubagentSpawned', childId, name, task: req.task, taskBlob, model, spec: req.spec, requestId: req.requestId,
  }]);
  await startChild(childWorkflow, {
    workflowId: childId,
    args: [{
      sessionId: childId, rootId: input.rootId, parentId: s.id, name, task: req.task, taskBlob, model,
      depth: input.depth + 1, limits: req.maxTurns ? { ...input.limits, maxTurns: req.maxTurns } : input.limits,
    }],
    // A child outlives a parent run that continues-as-new; it reports back by signal, not by result.
    parentClosePolicy: ParentClosePolicy.ABANDON,
  });
  return { ok: true, childId, name };
}
