import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RecurError } from '../../errors';
import type { ResearchSpec } from '../../workflows/research/research-messages';
import { parseFeed, releasedBy } from './records-feed';
import type { ResearchTask } from './tasks';

/** The problem a task's experiments run on unless its task.json names another. */
const DEFAULT_PROBLEM = 'small';

/** What a research session on `task` starts with: the last record its feed releases at the start. */
export function researchSpec(task: ResearchTask): ResearchSpec {
  const feedPath = join(task.dir, 'records', 'feed.jsonl');
  const released = existsSync(feedPath) ? releasedBy(parseFeed(readFileSync(feedPath, 'utf8')), 0) : [];
  const last = released.at(-1);
  if (!last) throw new RecurError(`${task.manifest.name} releases no record at the start (records/feed.jsonl): there is nothing to judge a candidate against`);
  return {
    task: task.manifest.name,
    problem: task.manifest.problem ?? DEFAULT_PROBLEM,
    record: { id: last.id, steps: last.train_steps, mean: last.mean, n: last.n },
  };
}
