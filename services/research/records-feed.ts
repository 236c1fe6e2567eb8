/**
 * A task's human-record feed, `records/feed.jsonl`: one record a line, each released
 * `release_after_seconds` after the run starts (virtual time, so a test can release a day's
 * records in a second). Releasing them into a running workspace is the research loop's job.
 */
export interface HumanRecord {
  id: string;
  release_after_seconds: number;
  train_steps: number;
  /** Its mean over the task's seeds as the frozen judge measures it: what a candidate is judged against. */
  mean: number;
  /** The seeds that mean is over. */
  n: number;
  config: Record<string, unknown>;
  note: string;
}

export function parseFeed(text: string): HumanRecord[] {
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as HumanRecord);
}

/** The records out by `elapsedSeconds` into a run, in feed order. */
export function releasedBy(feed: HumanRecord[], elapsedSeconds: number): HumanRecord[] {
  return feed.filter((r) => r.release_after_seconds <= elapsedSeconds);
}
