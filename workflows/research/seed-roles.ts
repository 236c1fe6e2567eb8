/*
 * A research root's first act after SessionStarted: its task's roles (generator, executor, judge)
 * become sub-agent specs in its tree's harness, before any model call, so the first prompt lists
 * them and rlm(task, spec=...) finds them. No I/O here: the activity reads the task and edits.
 */
import { patched, proxyActivities } from '@temporalio/workflow';
import type { createRoleActivities } from '../../activities/harness/seed-roles';
import { eventIdOf } from '../../schemas/session-ids';
import type { SessionState } from '../session-state';

/** Runs from before roles existed replay without the activity their history lacks. */
const RESEARCH_ROLES_PATCH = 'research-roles';

const { seedResearchRoles } = proxyActivities<ReturnType<typeof createRoleActivities>>({
  // A file read and one update on the harness scope.
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 10, maximumInterval: '10s' },
});

/** `startedSeq`: the root's SessionStarted, cited as the edits' trigger. */
export async function seedRoles(s: SessionState, startedSeq: number): Promise<void> {
  const { research, parentId } = s.input;
  if (!research || parentId !== null || !patched(RESEARCH_ROLES_PATCH)) return;
  await seedResearchRoles({ sessionId: s.id, task: research.task, generators: research.generators ?? [], evidence: [eventIdOf(s.id, startedSeq)] });
}
