import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../home/repo-root';

/** What a tier of knowledge gives the agent: the paper archive or not, and the sentence goal.md states. */
export interface KnowledgeTier {
  papers: boolean;
  /** Whether a research session on this tier may reach the network: only the hosts its --net allow-list names. */
  network: boolean;
  text: string;
}

/** A sub-agent spec a task ships (docs/research-loop.md, roles): its instructions' file in the task dir, and its turn limit. */
export interface TaskRole {
  instructions: string;
  maxTurns?: number | null;
}

/** A shipped research task's `task.json`. */
export interface TaskManifest {
  name: string;
  summary: string;
  /** Copied into every workspace; everything else in the task dir is the host's. */
  files: string[];
  /** The frozen judge script, run from the task dir, never from a workspace. */
  judge: string;
  /** The problem a research session's experiments run on; `small` when absent. */
  problem?: string;
  /**
   * What one simulated step of one seed stands for in run time on the virtual executor
   * (RECUR_JOB_EXECUTOR=virtual): the judge reports it with each verdict. Absent: experiments
   * take their real time there too.
   */
  simSecondsPerStep?: number;
  knowledge: Record<string, KnowledgeTier>;
  /** Sub-agent specs put into a research session tree's harness when its root starts, by name. */
  roles?: Record<string, TaskRole>;
}

export interface ResearchTask {
  dir: string;
  manifest: TaskManifest;
}

/** Shipped tasks live in the checkout, beside the code that judges them (design.md). */
export function tasksRoot(root = repoRoot()): string {
  return join(root, 'tasks');
}

export function listTasks(root = tasksRoot()): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).filter((name) => existsSync(join(root, name, 'task.json'))).sort();
}

export function readTask(name: string, root = tasksRoot()): ResearchTask | undefined {
  if (!listTasks(root).includes(name)) return undefined;
  const dir = join(root, name);
  return { dir, manifest: JSON.parse(readFileSync(join(dir, 'task.json'), 'utf8')) as TaskManifest };
}
