import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KnowledgeMounts } from '../../activities/workspace/binding';
import { parseNetPolicy } from '../../config';
import { RecurError } from '../../errors';
import type { ResearchSpec } from '../../workflows/research/research-messages';
import { parseFeed, releasedBy } from './records-feed';
import { researchRoles } from './roles';
import type { ResearchTask } from './tasks';

/** The problem a task's experiments run on unless its task.json names another. */
const DEFAULT_PROBLEM = 'small';
export const DEFAULT_TIER = 'weights-only';

/** How a research session on `task` starts: its spec, the network its tier allows, the mounts it sets. */
export interface ResearchStart {
  spec: ResearchSpec;
  /** The tree's network policy: `none` on a tier without network, else the allow-list asked for. */
  net: string;
  knowledge: KnowledgeMounts;
}

/**
 * A research session's start on `task` at `tier` (docs/research-loop.md): the last record its
 * feed releases at the start and the ones it releases later, and what the tier allows: the paper archive read-only or not at
 * all, and no network but on a tier that has it, and there only the hosts `net` lists. A `net`
 * the tier does not allow is refused rather than narrowed, so no one runs a tier they did not ask for.
 * `generators` (models) are checked against the roles the task ships, which the root's start puts
 * into its tree's harness (researchRoles).
 */
export function researchStart(task: ResearchTask, tier: string, net: string | undefined, generators: readonly string[] = []): ResearchStart {
  const t = task.manifest.knowledge[tier];
  if (!t) throw new RecurError(`unknown knowledge tier "${tier}"; ${task.manifest.name} has ${Object.keys(task.manifest.knowledge).join(', ')}`);
  const policy = net === undefined ? null : parseNetPolicy(net);
  if (policy && 'error' in policy) throw new RecurError(`net: ${policy.error}`);
  if (!t.network && policy && policy.kind !== 'none') throw new RecurError(`the ${tier} tier has no network: drop --net ${net}`);
  if (t.network && policy?.kind !== 'allow') throw new RecurError(`the ${tier} tier reaches only the hosts it is given: pass --net allow:HOST[:PORT],…`);
  const feedPath = join(task.dir, 'records', 'feed.jsonl');
  const feed = existsSync(feedPath) ? parseFeed(readFileSync(feedPath, 'utf8')) : [];
  const last = releasedBy(feed, 0).at(-1);
  if (!last) throw new RecurError(`${task.manifest.name} releases no record at the start (records/feed.jsonl): there is nothing to judge a candidate against`);
  researchRoles(task, generators);
  return {
    spec: {
      task: task.manifest.name, knowledge: tier, problem: task.manifest.problem ?? DEFAULT_PROBLEM,
      record: { id: last.id, steps: last.train_steps, mean: last.mean, n: last.n },
      releases: feed.filter((r) => r.release_after_seconds > 0).sort((a, b) => a.release_after_seconds - b.release_after_seconds).map((r) => ({
        id: r.id, steps: r.train_steps, mean: r.mean, n: r.n, afterSeconds: r.release_after_seconds, config: JSON.stringify(r.config), note: r.note,
      })),
      ...(generators.length > 0 && { generators: [...generators] }),
    },
    net: t.network ? net!.trim().toLowerCase() : 'none',
    knowledge: { tier, papers: t.papers ? join(task.dir, 'papers') : null },
  };
}
