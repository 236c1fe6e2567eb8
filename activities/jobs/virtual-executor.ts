import { createJobActivities, type JobActivities, type JobDeps } from './run-job';

/** A job's report of the run time it stands for: its last `sim_seconds: S` line. */
const SIM_LINE = /^sim_seconds:\s*(\d+(?:\.\d+)?)\s*$/gm;

/** The run time a job's output reports (its last `sim_seconds:` line), or null when it reports none. */
export function reportedSeconds(logTail: string): number | null {
  const last = [...logTail.matchAll(SIM_LINE)].at(-1);
  return last ? Number(last[1]) : null;
}

/**
 * The virtual executor (RECUR_JOB_EXECUTOR=virtual): each job runs for real on the local pool,
 * and its result carries the run time it reports instead of the seconds it took. The job's
 * workflow holds the end on a durable timer until that time has passed on the workflow clock
 * (workflows/jobs/job-clock.ts), so it reports the end itself: on a time-skipping Temporal
 * server, hours of experiments take the seconds their real runs do, and the log is in virtual time.
 */
export function createVirtualJobActivities(deps: JobDeps): JobActivities {
  const local = createJobActivities({ ...deps, onEnded: async () => undefined });
  return {
    ...local,
    async runJob(input) {
      const r = await local.runJob(input);
      return { ...r, seconds: reportedSeconds(r.logTail) ?? r.seconds };
    },
  };
}
