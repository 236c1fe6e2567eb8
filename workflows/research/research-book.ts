import type { RecurEventInput } from '../../schemas/generated/events';
import type { RunJobResult } from '../../activities/jobs/run-job';
import { experimentEnd } from './experiment-end';
import type { CurrentRecord, Experiment, FeedRelease, ResearchSpec } from './research-messages';

/** What a continued run keeps of its ledger. */
export interface ResearchCarry {
  rows: Experiment[];
  record: CurrentRecord;
  /** Feed releases logged so far; absent in carries from before there were any. */
  released?: number;
}

/** Ended rows kept for ledger.query; older ones are in the log (recur research ledger). */
export const KEPT_ENDED = 200;

/**
 * A research session's ledger and current record; pure. Changed only in emit's commits, so it
 * says what the log says.
 */
export class ResearchBook {
  readonly task: string;
  readonly problem: string;
  private readonly rows: Experiment[];
  private readonly releases: FeedRelease[];
  private released: number;
  record: CurrentRecord;
  constructor(spec: ResearchSpec, c?: ResearchCarry) {
    this.task = spec.task;
    this.problem = spec.problem;
    this.rows = c?.rows ?? [];
    this.record = c?.record ?? spec.record;
    this.releases = spec.releases ?? [];
    this.released = c?.released ?? 0;
  }

  /** When the feed's next record comes out (epoch ms, for a session started at `startedAt`); null when none is left. */
  nextRelease(startedAt: number): number | null {
    const next = this.releases[this.released];
    return next ? startedAt + next.afterSeconds * 1000 : null;
  }

  /**
   * The feed's records out by `now`, as events, and the change to make once they are logged: a
   * record with fewer steps than the one in force becomes the one candidates must beat.
   */
  releaseDue(startedAt: number, now: number): { events: RecurEventInput[]; commit: () => void } {
    const due = this.releases.slice(this.released).filter((r) => startedAt + r.afterSeconds * 1000 <= now);
    let record = this.record;
    const events: RecurEventInput[] = due.map((r) => {
      const inForce = r.steps < record.steps;
      if (inForce) record = { id: r.id, steps: r.steps, mean: r.mean, n: r.n };
      return { type: 'RecordReleased', recordId: r.id, releaseAfterSeconds: r.afterSeconds, steps: r.steps, mean: r.mean, n: r.n, config: r.config, note: r.note, inForce };
    });
    return { events, commit: () => { this.released += due.length; this.record = record; } };
  }

  get(id: string): Experiment | undefined {
    return this.rows.find((r) => r.id === id);
  }

  last(n: number): Experiment[] {
    return this.rows.slice(-n);
  }

  add(row: Experiment): void {
    this.rows.push(row);
  }

  /** A row's end: its numbers, and the record it set if accepted. */
  end(row: Experiment, fields: Partial<Experiment>, record: CurrentRecord | null): void {
    Object.assign(row, fields);
    if (record) this.record = record;
    const ended = this.rows.filter((r) => r.status !== 'queued');
    if (ended.length > KEPT_ENDED) this.rows.splice(this.rows.indexOf(ended[0]), 1);
  }

  /**
   * What a job's end logs for the ledger, and the change to make once it is logged; null when
   * the job is no experiment of this session's, or its row has ended already.
   */
  experimentEnded(jobId: string, end: Pick<RunJobResult, 'outcome' | 'reason' | 'logTail'>): { events: RecurEventInput[]; commit: () => void } | null {
    const row = this.get(jobId);
    if (!row || row.status !== 'queued') return null;
    const e = experimentEnd(row, this.record, end);
    return { events: e.events, commit: () => this.end(row, e.fields, e.record) };
  }

  carry(): ResearchCarry {
    return { rows: this.rows, record: this.record, released: this.released };
  }
}
