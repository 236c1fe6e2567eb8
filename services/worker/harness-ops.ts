import type { Client } from '@temporalio/client';
import { HarnessEditError, ScopeError } from '../../errors';
import { materialiseSkill } from '../../activities/harness/materialise-skill';
import { mergeScopes } from '../../activities/prompt/harness-section';
import { getStatusQuery } from '../../workflows/messages';
import {
  editHarnessUpdate, recordHarnessEditsUpdate, refineHarnessUpdate, revertHarnessUpdate, type EditOutcome,
} from '../../workflows/harness/harness-messages';
import type { HarnessScope, ProposedEdit, SkillValue } from '../../workflows/harness/harness-types';
import { refuseShadowingSkills, type ModuleNames } from '../../activities/harness/module-names';
import type { HostBridge } from '../host-bridge';
import type { ApprovalGate } from './approval-gate';
import type { HarnessClient } from '../../activities/harness/harness-client';

const scopeOf = (v: unknown): HarnessScope => {
  if (v === undefined || v === null || v === 'session') return 'session';
  if (v === 'global') return 'global';
  throw new HarnessEditError(`scope must be "session" or "global", got ${JSON.stringify(v)}`);
};

/**
 * What a kernel's refine does with valid edits: a kernel may ask for `approve` where the operator
 * set `auto`, never the other way round (RECUR_REFINE_APPLY=approve holds whatever the agent passes).
 */
export function refineMode(operator: 'auto' | 'approve', asked: unknown): 'auto' | 'approve' {
  return operator === 'approve' || asked === 'approve' ? 'approve' : 'auto';
}

/** A kernel call repeated after a worker restart (same rid) is one update: an approved edit is made once. */
const once = (kind: string, rid: string | undefined) => ({ updateId: rid && `harness-${kind}-${rid}` });

/** The scope an edit or refine id belongs to: `harness:<x>/<seq>` or `harness:<x>#r<n>`. */
export function scopeOfId(id: string): string {
  const cut = id.search(/[/#]/);
  return cut < 0 ? id : id.slice(0, cut);
}

/**
 * What a kernel can do to its harness (`harness.*` in Python): read the merged view, edit the
 * session tree's or the global scope, revert by id, refine, and locate a skill's package to
 * import. Each edit's trigger names the event the request came from (the session's last logged
 * event: the CellRequested of the running cell). Anything that would change the global scope
 * first needs the approval policy's yes (kind `harness-global`): while an operator has not answered,
 * the op hands the kernel a PendingApproval and the kernel calls again once it is decided.
 */
export function registerHarnessOps(bridge: HostBridge, deps: {
  client: Client;
  harness: HarnessClient;
  /** Where a session's skills are materialised: a directory its kernel's sandbox mounts read-only. */
  skillsDir: (sessionId: string) => string;
  refineApply: 'auto' | 'approve';
  approvals: ApprovalGate;
  moduleNames: ModuleNames;
}): void {
  const { harness } = deps;
  const globalGate = (sessionId: string, scope: HarnessScope, detail: string, call: { rid?: string; args: Record<string, unknown> }) =>
    (scope === 'global' ? deps.approvals.gate(sessionId, { kind: 'harness-global', detail }, call) : Promise.resolve(null));
  const evidence = async (sessionId: string): Promise<string[]> => {
    const { nextSeq } = await deps.client.workflow.getHandle(sessionId).query(getStatusQuery);
    return nextSeq > 0 ? [`${sessionId}/${nextSeq - 1}`] : [];
  };
  // The session logs the link before the kernel hears back, so the cell is known to have had an effect.
  const record = async (sessionId: string, op: 'edit' | 'revert' | 'refine', outcomes: EditOutcome[]) => {
    if (outcomes.length > 0) {
      await deps.client.workflow.getHandle(sessionId).executeUpdate(recordHarnessEditsUpdate, { args: [{ op, editIds: outcomes.map((o) => o.editId) }] });
    }
  };
  const entries = async (sessionId: string) => {
    const { global, session } = await harness.merged(sessionId);
    return mergeScopes(global.entries, session.entries);
  };

  bridge.handle('harness.list', async (sessionId, args) =>
    (await entries(sessionId)).filter((e) => !args.kind || e.kind === args.kind));

  bridge.handle('harness.read', async (sessionId, args) =>
    (await entries(sessionId)).find((e) => e.kind === args.kind && e.name === args.name) ?? null);

  bridge.handle('harness.edit', async (sessionId, args, { rid }) => {
    const scope = scopeOf(args.scope);
    const [edit]: ProposedEdit[] = await refuseShadowingSkills([{
      action: String(args.action) as ProposedEdit['action'], kind: String(args.kind), name: String(args.name), value: args.value,
    }], deps.moduleNames);
    // A refused edit is logged as refused at once: nothing for an operator to approve.
    const pending = edit.refusal ? null : await globalGate(sessionId, scope, `${edit.action} ${edit.kind} "${edit.name}" in the global harness: ${JSON.stringify(edit.value ?? null)}`, { rid, args });
    if (pending) return pending;
    const [outcome] = await harness.update(harness.scopeId(sessionId, scope), editHarnessUpdate, {
      edits: [edit], source: 'kernel', requestedBy: sessionId,
      trigger: { eventIds: await evidence(sessionId), reason: typeof args.reason === 'string' && args.reason ? args.reason : `${edit.action} from ${sessionId}` },
    }, once('edit', rid));
    await record(sessionId, 'edit', [outcome]);
    if (outcome.result === 'refused') throw new HarnessEditError(`${outcome.error} (logged as ${outcome.editId})`);
    return outcome;
  });

  bridge.handle('harness.revert', async (sessionId, args, { rid }) => {
    const id = String(args.id ?? '');
    const scopeId = scopeOfId(id);
    if (scopeId !== harness.scopeId(sessionId, 'session') && scopeId !== harness.scopeId(sessionId, 'global')) {
      throw new ScopeError(`${id} is not an edit of this session tree's or the global harness`);
    }
    const scope = scopeId === harness.scopeId(sessionId, 'global') ? 'global' : 'session';
    const pending = await globalGate(sessionId, scope, `revert ${id} in the global harness`, { rid, args });
    if (pending) return pending;
    const reply = await harness.update(scopeId, revertHarnessUpdate, {
      id, source: 'kernel', requestedBy: sessionId, reason: typeof args.reason === 'string' ? args.reason : '',
    }, once('revert', rid));
    if (!reply.ok) throw new HarnessEditError(reply.error);
    await record(sessionId, 'revert', reply.edits);
    return reply.edits;
  });

  bridge.handle('harness.log', async (sessionId, args) =>
    (await harness.view(harness.scopeId(sessionId, scopeOf(args.scope)))).log);

  bridge.handle('harness.skill_path', async (sessionId, args) => {
    const skill = (await entries(sessionId)).find((e) => e.kind === 'skill' && e.name === args.name);
    return skill ? { path: materialiseSkill(deps.skillsDir(sessionId), skill.name, skill.value as SkillValue) } : null;
  });

  bridge.handle('harness.refine', async (sessionId, args, { rid }) => {
    const scope = scopeOf(args.scope);
    const instructions = typeof args.instructions === 'string' ? args.instructions : '';
    const pending = await globalGate(sessionId, scope, `refine the global harness: ${instructions}`, { rid, args });
    if (pending) return pending;
    const reply = await harness.update(harness.scopeId(sessionId, scope), refineHarnessUpdate, {
      sessionId, model: '', instructions, apply: refineMode(deps.refineApply, args.apply), source: 'kernel', requestedBy: sessionId,
    }, once('refine', rid));
    await record(sessionId, 'refine', [...reply.proposed, ...reply.applied]);
    return reply;
  });
}
