/*
 * rlm(): a child session as a child workflow, within the session's and the tree's limits. A child
 * is in this session's state only once its SubagentSpawned is logged; a refusal at a limit is
 * logged as SpawnRefused before the kernel sees it. Deterministic: one activity and startChild only.
 */
import { ParentClosePolicy, startChild } from '@temporalio/workflow';
import type { SpawnLimit } from '../schemas/generated/events';
import { checkAgentName, checkChildId } from './check-family-scope';
import { describeFault } from './end-session';
import type { ReserveReply, SpawnReply, SpawnRequest } from './messages';
import type { sessionActivities } from './proxies';
import { retask } from './retain';
import type { SessionState } from './session-state';
import type { ChildInfo } from './child-types';
import type { SessionInput } from './session-types';
import type { Slice } from './tree-ledger';

type ChildWorkflow = (input: SessionInput) => Promise<unknown>;

export async function spawn(s: SessionState, req: SpawnRequest, childWorkflow: ChildWorkflow, acts: ReturnType<typeof sessionActivities>): Promise<SpawnReply> {
  const { input } = s;
  const { limits } = input;
  const name = req.name ?? `agent-${s.children.size + 1}`;
  const bad = checkAgentName(name);
  if (bad) return { ok: false, reason: bad };
  const existing = s.children.get(name);
  const taskBlob = req.taskBlob ?? null;
  const sameTask = (c: ChildInfo) => c.task === req.task && (c.taskBlob?.sha256 ?? null) === (taskBlob?.sha256 ?? null);
  if (existing) return sameTask(existing) ? { ok: true, childId: existing.id, name } : retask(s, existing, req);
  if (input.depth + 1 > limits.maxDepth) {
    return refuse(s, name, 'max_depth', `depth limit ${limits.maxDepth} reached: ${s.id} is at depth ${input.depth} and cannot spawn (raise RECUR_MAX_DEPTH)`);
  }
  if (s.children.size >= limits.maxChildren) {
    return refuse(s, name, 'children_per_session', `children-per-session limit: ${s.id} has spawned ${s.children.size} children, the most one session may (RECUR_MAX_CHILDREN=${limits.maxChildren}); give an existing child a new task with rlm(task, name=...)`);
  }
  const childId = `${s.id}/${name}`;
  const tooLong = checkChildId(childId);
  if (tooLong) return { ok: false, reason: tooLong };
  let workspace = input.workspace;
  if (req.workspace === 'worktree') {
    const made = await acts.prepareWorktree({ rootId: input.rootId, parentId: s.id, childId });
    if (!made.ok) return { ok: false, reason: made.reason };
    workspace = made.workspace;
  }
  const asked = req.slice ?? null;
  const slot = input.parentId === null ? reserveTreeSession(s, childId, asked) : await acts.reserveTreeSession({ rootId: input.rootId, childId, slice: asked });
  if (!slot.ok) return refuse(s, name, 'sessions_per_tree', slot.reason);
  const model = req.model ?? s.ops.model;
  const child: ChildInfo = { name, id: childId, task: req.task, taskBlob, model, status: 'running', answer: null, error: null };
  let clash = false;
  await s.emit(() => {
    // Another spawn of this name may have been logged while this one waited for its slot.
    clash = s.children.has(name);
    return clash ? [] : [{ type: 'SubagentSpawned', childId, name, task: req.task, taskBlob, model, spec: req.spec, requestId: req.requestId }];
  }, () => {
    if (!clash) s.children.set(name, child);
  });
  if (clash) return spawn(s, req, childWorkflow, acts);
  try {
    await startChild(childWorkflow, {
      workflowId: childId,
      args: [{
        sessionId: childId, rootId: input.rootId, parentId: s.id, name, task: req.task, taskBlob, model, ...(input.backup && { backup: input.backup }),
        depth: input.depth + 1, ...(workspace !== undefined && { workspace }), limits: req.maxTurns ? { ...limits, maxTurns: req.maxTurns } : limits, approvals: input.approvals,
        slice: asked && slot.slice ? { asked, ...slot.slice } : null, inSlice: !!input.inSlice || !!asked,
      }],
      // A child outlives a parent run that continues-as-new; it reports back by signal, not by result.
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (e) {
    // Logged as spawned but never started: it ends as failed, never a running child that does not exist.
    const error = `the child could not start: ${describeFault(e)}`;
    await s.emit(() => [{ type: 'SubagentCompleted', childId, status: 'failed', answer: '', error }], () => Object.assign(child, { status: 'failed', error }));
    return { ok: false, reason: error };
  }
  return { ok: true, childId, name, capped: slot.slice?.capped ?? null };
}

/**
 * The root's side of the tree's session count: a slot is taken for good (never handed back), so
 * a retried or abandoned reservation can only over-count, never let the tree pass its limit.
 */
export function reserveTreeSession(s: SessionState, childId: string, slice: Slice | null): ReserveReply {
  const max = s.input.limits.maxTreeSessions;
  if (s.treeSessions >= max) {
    return { ok: false, reason: `sessions-per-tree limit: the tree of ${s.id} holds ${s.treeSessions} sessions, the most one tree may (RECUR_MAX_TREE_SESSIONS=${max})` };
  }
  s.treeSessions++;
  return slice ? { ok: true, slice: s.ledger!.grantSlice(childId, slice) } : { ok: true };
}

async function refuse(s: SessionState, name: string, limit: SpawnLimit, reason: string): Promise<SpawnReply> {
  await s.emit(() => [{ type: 'SpawnRefused', name, limit, reason }]);
  return { ok: false, reason, limit: true };
}
