import { Context } from '@temporalio/activity';

/** A job by its session and id: unique within a host's executor. */
export interface JobRef {
  sessionId: string;
  jobId: string;
}

/** Also while queued: cancellation reaches an activity only through its heartbeats. */
const HEARTBEAT_MS = 3_000;

export interface LiveJobs {
  /**
   * Runs a runJob's body heartbeating, with a signal that aborts on Temporal's cancellation or
   * on cancelJob, whichever comes first; the job is held for cancelJob until the body settles.
   */
  run<T>(job: JobRef, body: (ctx: Context, cancelled: AbortSignal) => Promise<T>): Promise<T>;
  /** Aborts the job's body if this process holds it; false when it does not. */
  cancel(job: JobRef): boolean;
}

/** The jobs one executor's process holds, queued or running, by session and id: what its cancelJob stops. */
export function createLiveJobs(): LiveJobs {
  const live = new Map<string, AbortController>();
  const keyOf = (j: JobRef) => `${j.sessionId}\n${j.jobId}`;
  return {
    async run(job, body) {
      const ctx = Context.current();
      ctx.heartbeat();
      const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_MS);
      const stop = new AbortController();
      const fromTemporal = () => stop.abort();
      ctx.cancellationSignal.addEventListener('abort', fromTemporal);
      if (ctx.cancellationSignal.aborted) fromTemporal();
      live.set(keyOf(job), stop);
      try {
        return await body(ctx, stop.signal);
      } finally {
        live.delete(keyOf(job));
        ctx.cancellationSignal.removeEventListener('abort', fromTemporal);
        clearInterval(beat);
      }
    },
    cancel(job) {
      const held = live.get(keyOf(job));
      held?.abort();
      return held !== undefined;
    },
  };
}
