import type { JobEnded } from '../../schemas/generated/events';

/** A job's end as the model reads it: marked as the host's, with the output's end. */
export function jobEndedNote(e: JobEnded): string {
  const how = e.outcome === 'finished' ? `finished in ${e.seconds.toFixed(1)} s` : `${e.outcome.replace('_', ' ')}: ${e.reason}`;
  const tail = e.logTail ? `\nlast output:\n${e.logTail}` : '';
  return `[job ${e.jobId} ${how}; jobs.logs("${e.jobId}") has its whole output]${tail}`;
}
