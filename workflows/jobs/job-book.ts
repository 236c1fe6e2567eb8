import type { JobStatus, JobView } from './job-messages';

/** What a continued run keeps of its jobs. */
export interface JobCarry {
  jobs: JobView[];
  submitted: number;
}

/** Jobs a session may have queued or running at once. */
export const MAX_ACTIVE_JOBS = 50;
/** Ended jobs kept for jobs.status; older ones are in the log only. */
const KEPT_ENDED = 200;

const ACTIVE: ReadonlySet<JobStatus> = new Set(['queued', 'running']);

/**
 * The session's jobs; pure. Changed only in emit's commits, so it says what the log says. `ended`
 * counts ends in this run, so a wait can tell that one came.
 */
export class JobBook {
  private readonly jobs: JobView[];
  private submitted: number;
  ended = 0;
  constructor(c?: JobCarry) {
    this.jobs = c?.jobs ?? [];
    this.submitted = c?.submitted ?? 0;
  }

  get(id: string): JobView | undefined {
    return this.jobs.find((j) => j.id === id);
  }

  all(): JobView[] {
    return this.jobs;
  }

  active(): JobView[] {
    return this.jobs.filter((j) => ACTIVE.has(j.status));
  }

  /** The next job's id; read in an emit's build, so two submits at once get two ids. */
  nextId(): string {
    return `job-${this.submitted + 1}`;
  }

  add(job: JobView): void {
    this.submitted++;
    this.jobs.push(job);
  }

  start(job: JobView): void {
    job.status = 'running';
  }

  /** Stopped and requeued (or not: its end follows): it stays running for the session, as Slurm's job stays live. */
  preempt(job: JobView): void {
    job.preemptions = (job.preemptions ?? 0) + 1;
  }

  end(job: JobView, status: JobStatus, exitCode: number | null, seconds: number, reason: string): void {
    Object.assign(job, { status, exitCode, seconds, reason });
    this.ended++;
    const ended = this.jobs.filter((j) => !ACTIVE.has(j.status));
    if (ended.length > KEPT_ENDED) this.jobs.splice(this.jobs.indexOf(ended[0]), 1);
  }

  carry(): JobCarry {
    return { jobs: this.jobs, submitted: this.submitted };
  }
}
