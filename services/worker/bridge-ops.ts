import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, ServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { HttpError, RecurError, ScopeError, SubagentFailedError } from '../../errors';
import {
  deleteChildUpdate, getChildrenQuery, recordMergeUpdate, sendAgentMessageUpdate, setFinalUpdate, spawnChildUpdate, takeMessagesUpdate,
} from '../../workflows/messages';
import type { BridgeHandler, HostBridge } from '../host-bridge';
import type { SubagentValue } from '../../workflows/harness/harness-types';
import type { InboxMessage } from '../../workflows/session-types';
import type { Slice } from '../../workflows/tree-ledger';
import { HARD, INLINE } from '../../schemas/field-limits';
import { withinLimit, type BridgeValues } from './bridge-values';
import type { Worktrees } from '../../activities/workspace/worktree';

/** WorkspaceMerged's item limit (schemas/field-limits.ts); the kernel still gets every file. */
const MAX_MERGE_FILES = 200;

/** A harness sub-agent spec by name, as the spawning session sees it (null when there is none). */
export type ResolveSpec = (sessionId: string, name: string) => Promise<SubagentValue | null>;

/** The child's task when it comes from a spec: the spec's instructions, then the parent's task. */
export const specTask = (name: string, spec: SubagentValue, task: string): string =>
  `[instructions from sub-agent spec "${name}"]\n${spec.instructions}\n\n[task]\n${task}`;

/** Longest a long-poll op (rlm.result, agent_message.recv) holds one request; Python loops past it. */
const MAX_WAIT_S = 30;

/** A refusal at a limit is a LimitError (429) in the kernel; any other is a ScopeError (403). Both derive from PermissionError there. */
const refusal = (r: { reason: string; limit?: boolean }): Error => (r.limit ? new HttpError(429, r.reason, 'LimitError') : new ScopeError(r.reason));

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** rlm(task, budget_tokens=, budget_usd=): a slice asks for positive numbers; none asked is no slice. */
function sliceOf(args: Record<string, unknown>): Slice | null {
  const one = (key: string): number | null => {
    const v = args[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new ScopeError(`rlm(${key}=...): must be a positive number, got ${JSON.stringify(v)}`);
    return v;
  };
  const tokens = one('budget_tokens');
  const costUsd = one('budget_usd');
  return tokens === null && costUsd === null ? null : { tokens: tokens === null ? null : Math.floor(tokens), costUsd };
}
const waitMs = (v: unknown) => Math.min(Math.max(Number(v) || 0, 0), MAX_WAIT_S) * 1000;

/**
 * Temporal not answering (no worker serving the workflow yet, a restarting server) is worth
 * the kernel asking again: a retryable error is a 503, which the kernel retries with the same rid.
 */
export function retryableWhenTransient(fn: BridgeHandler): BridgeHandler {
  return async (sessionId, args, ctx) => {
    try {
      return await fn(sessionId, args, ctx);
    } catch (e) {
      if (e instanceof ServiceError || e instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
        throw new RecurError(`Temporal did not answer for ${sessionId}: ${e.message}`, { retryable: true, cause: e });
      }
      throw e;
    }
  };
}

/** The kernel repeats a call whose connection broke (worker restart) with the same rid: one update per rid. */
const once = (kind: string, rid: string | undefined) => (rid ? { updateId: `${kind}-${rid}` } : {});

/**
 * What a kernel can ask of its own session, as bridge ops over the session workflow's updates
 * and queries. The bridge has already mapped the caller's token to `sessionId`, so every op acts
 * on the caller's own workflow; family scope and depth are decided there and logged. Every op
 * that changes anything is an update keyed by the call's rid, so a retried call is answered
 * from the first one's outcome (a message is taken or sent once, a child spawned once).
 */
export function registerSessionOps(
  host: HostBridge, client: Client, resolveSpec: ResolveSpec, values: BridgeValues, worktrees: Pick<Worktrees, 'merge'>,
): void {
  const bridge = { handle: (op: string, fn: BridgeHandler) => host.handle(op, retryableWhenTransient(fn)) };
  const session = (id: string) => client.workflow.getHandle(id);
  const children = (id: string) => session(id).query(getChildrenQuery);
  const child = async (sessionId: string, id: unknown) => {
    const found = (await children(sessionId)).find((c) => c.id === id || c.name === id);
    if (!found) throw new ScopeError(`${sessionId} has no sub-agent ${String(id)}`);
    return found;
  };
  const whole = async (m: InboxMessage) => ({ ...m, text: await values.whole(m.text, m.textBlob), textBlob: undefined });

  bridge.handle('rlm.spawn', async (sessionId, args, { rid }) => {
    let task = str(args.task);
    if (!task) throw new ScopeError('rlm(task): task must be a non-empty string');
    const specName = withinLimit('rlm(spec=...)', args.spec === undefined || args.spec === null ? null : str(args.spec), HARD.name);
    if (args.spec != null && !specName) throw new ScopeError('rlm(spec=...): spec must be the name of a harness sub-agent spec');
    const spec = specName ? await resolveSpec(sessionId, specName) : null;
    if (specName && !spec) throw new ScopeError(`no sub-agent spec named "${specName}" in this session's harness (see harness.subagents.list())`);
    if (specName && spec) task = specTask(specName, spec, task);
    const name = withinLimit('rlm(name=...)', str(args.name), HARD.name);
    const model = withinLimit('rlm(model=...)', str(args.model), HARD.name);
    const { preview, blob } = await values.offload(task, INLINE.task);
    const workspace = args.workspace === undefined || args.workspace === null || args.workspace === 'shared' ? null : args.workspace;
    if (workspace !== null && workspace !== 'worktree') throw new ScopeError('rlm(workspace=...): "shared" or "worktree"');
    const reply = await session(sessionId).executeUpdate(spawnChildUpdate, {
      args: [{
        task: preview, taskBlob: blob, name, model: model ?? spec?.model ?? null, spec: specName,
        maxTurns: spec?.maxTurns ?? null, requestId: rid ?? null, slice: sliceOf(args), ...(workspace && { workspace }),
      }],
      ...once('spawn', rid),
    });
    if (!reply.ok) throw refusal(reply);
    return { id: reply.childId, name: reply.name, capped: reply.capped ?? null };
  });

  bridge.handle('rlm.status', async (sessionId, args) => ({ status: (await child(sessionId, args.id)).status }));

  bridge.handle('rlm.result', async (sessionId, args, { signal }) => {
    const deadline = Date.now() + waitMs(args.wait);
    for (let pause = 50; ; pause = Math.min(pause * 2, 500)) {
      const c = await child(sessionId, args.id);
      if (c.status === 'completed') return { done: true, value: await values.whole(c.answer ?? '', c.answerBlob) };
      if (c.status !== 'running') throw new SubagentFailedError(c.id, c.status, c.error ?? 'no answer');
      if (Date.now() >= deadline || signal.aborted) return { done: false };
      await sleep(Math.min(pause, Math.max(deadline - Date.now(), 0)));
    }
  });

  bridge.handle('rlm.list', async (sessionId) => children(sessionId));

  // The worker merges (the kernel reaches no other directory), then the caller's workflow logs what it did.
  bridge.handle('rlm.merge', async (sessionId, args, { rid }) => {
    const c = await child(sessionId, args.id);
    const outcome = await worktrees.merge(c.id);
    await session(sessionId).executeUpdate(recordMergeUpdate, { args: [{ childId: c.id, ...outcome, files: outcome.files.slice(0, MAX_MERGE_FILES) }], ...once('merge', rid) });
    if (outcome.status === 'conflict') {
      throw new HttpError(409, `merging ${c.name} conflicts in ${outcome.files.join(', ')}; nothing was applied`, 'MergeConflictError');
    }
    return { status: outcome.status, files: outcome.files };
  });

  bridge.handle('rlm.delete', async (sessionId, args, { rid }) => {
    const reply = await session(sessionId).executeUpdate(deleteChildUpdate, { args: [{ name: str(args.name) ?? '' }], ...once('delete', rid) });
    if (!reply.ok) throw new ScopeError(reply.reason);
    return reply;
  });

  bridge.handle('agent_message.send', async (sessionId, args, { rid }) => {
    const to = withinLimit('agent_message.send(to=...)', str(args.to) ?? 'parent', HARD.recipient);
    const { preview, blob } = await values.offload(String(args.text ?? ''), INLINE.message);
    const reply = await session(sessionId).executeUpdate(sendAgentMessageUpdate, {
      args: [{ to, text: preview, textBlob: blob }],
      ...once('send', rid),
    });
    if (!reply.ok) throw refusal(reply);
    return { messageId: reply.messageId, to: reply.to };
  });

  bridge.handle('agent_message.inbox', async (sessionId, _args, { rid }) => {
    const taken = await session(sessionId).executeUpdate(takeMessagesUpdate, { args: [{ waitMs: 0, max: null }], ...once('take', rid) });
    return Promise.all(taken.map(whole));
  });

  bridge.handle('agent_message.recv', async (sessionId, args, { rid }) => {
    const [message] = await session(sessionId).executeUpdate(takeMessagesUpdate, {
      args: [{ waitMs: waitMs(args.wait), max: 1 }], ...once('take', rid),
    });
    return { message: message ? await whole(message) : null };
  });

  bridge.handle('final', async (sessionId, args, { rid }) => {
    const answer = typeof args.value === 'string' ? args.value : JSON.stringify(args.value);
    const { preview, blob } = await values.offload(answer, INLINE.answer);
    await session(sessionId).executeUpdate(setFinalUpdate, { args: [{ answer: preview, answerBlob: blob }], ...once('final', rid) });
    return null;
  });
}
