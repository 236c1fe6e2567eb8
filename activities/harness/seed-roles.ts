import type { HarnessClient } from './harness-client';
import { editHarnessUpdate, type EditOutcome } from '../../workflows/harness/harness-messages';
import type { SubagentValue } from '../../workflows/harness/harness-types';

export interface SeedRolesInput {
  /** The research session's root: its tree's harness scope gets the specs. */
  sessionId: string;
  task: string;
  generators: string[];
  /** The root's SessionStarted: what the edits answer to. */
  evidence: string[];
}

/** The sub-agent specs a task ships (services/research/roles.ts), as the worker reads them from its checkout. */
export type TaskRoles = (task: string, generators: readonly string[]) => { name: string; value: SubagentValue }[];

/**
 * A research root's start puts its task's roles into the tree's harness the way any harness edit
 * is made: one update to the scope's workflow, which validates and logs each as HarnessEdited
 * with the task as its source. A retry is the same update (its id), so the specs are created once.
 */
export function createRoleActivities(deps: { harness: HarnessClient; roles: TaskRoles }) {
  return {
    async seedResearchRoles(input: SeedRolesInput): Promise<EditOutcome[]> {
      const roles = deps.roles(input.task, input.generators);
      if (roles.length === 0) return [];
      return deps.harness.update(deps.harness.scopeId(input.sessionId, 'session'), editHarnessUpdate, {
        edits: roles.map((r) => ({ action: 'create' as const, kind: 'subagent', name: r.name, value: r.value })),
        trigger: { eventIds: input.evidence, reason: `the roles research task ${input.task} ships` },
        source: `task:${input.task}`,
        requestedBy: input.sessionId,
      }, { updateId: `roles-${input.sessionId}` });
    },
  };
}
