import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { RecurError } from '../../errors';
import type { SubagentValue } from '../../workflows/harness/harness-types';
import { readTask, type ResearchTask } from './tasks';

/** The role `--generators` makes one spec of per model. */
export const GENERATOR_ROLE = 'generator';
/** More generators than this is a fleet, not a flag: refused rather than started. */
export const MAX_GENERATORS = 8;

export interface RoleSpec {
  name: string;
  value: SubagentValue;
}

/**
 * The sub-agent specs a research session's tree starts with: each role the task ships, on the
 * model of whoever spawns it, except the generator, which becomes `generator_1`, `generator_2`, …
 * when `generators` names models, one spec on each. Harness names allow no `-`, hence the `_`.
 */
export function researchRoles(task: ResearchTask, generators: readonly string[]): RoleSpec[] {
  const roles = task.manifest.roles ?? {};
  if (generators.length > MAX_GENERATORS) throw new RecurError(`at most ${MAX_GENERATORS} generators, got ${generators.length}`);
  if (generators.length > 0 && !roles[GENERATOR_ROLE]) throw new RecurError(`${task.manifest.name} ships no ${GENERATOR_ROLE} role to run on the generators' models`);
  return Object.entries(roles).flatMap(([name, role]): RoleSpec[] => {
    const value: SubagentValue = { instructions: instructions(task, name, role.instructions), model: null, maxTurns: role.maxTurns ?? null };
    if (name !== GENERATOR_ROLE || generators.length === 0) return [{ name, value }];
    return generators.map((model, i) => ({ name: `${name}_${i + 1}`, value: { ...value, model } }));
  });
}

/** A role's instructions, from a file inside the task's directory: the checkout's, never a workspace's. */
function instructions(task: ResearchTask, role: string, file: string): string {
  const path = resolve(task.dir, file);
  const inside = relative(task.dir, path);
  if (!inside || inside.startsWith('..') || isAbsolute(inside)) throw new RecurError(`${task.manifest.name} role ${role}: ${file} is not a file of the task`);
  return readFileSync(path, 'utf8').trim();
}

/** The roles of a task shipped in this checkout, as a worker puts them into a research tree's harness. */
export function shippedRoles(name: string, generators: readonly string[]): RoleSpec[] {
  const task = readTask(name);
  if (!task) throw new RecurError(`no research task ${name} in this checkout's tasks/`);
  return researchRoles(task, generators);
}
