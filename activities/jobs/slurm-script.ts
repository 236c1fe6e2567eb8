import { createHash } from 'node:crypto';
import type { JobLaunch } from './job-launch';

/** One word for bash, whatever it holds. */
export const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The Slurm job name of a session's job: how a retried runJob finds the job an earlier attempt
 * submitted. squeue splits `-n` at commas, so anything beyond a plain name is replaced and a
 * digest of the real ids keeps two sessions that read alike apart.
 */
export function slurmJobName(sessionId: string, jobId: string): string {
  const plain = `recur.${sessionId}.${jobId}`;
  if (/^[A-Za-z0-9_.#@:-]{1,120}$/.test(plain)) return plain;
  const digest = createHash('sha256').update(`${sessionId}\n${jobId}`).digest('hex').slice(0, 12);
  return `recur.${sessionId.replace(/[^A-Za-z0-9_.#@:-]/g, '_').slice(0, 60)}.${jobId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40)}.${digest}`;
}

/** Where the batch script writes the seed it is running, for the failing seed's reason. */
export const seedFile = (log: string): string => `${log}.seed`;

/**
 * The batch script: the launcher's argv once per seed (or once), in order, with RECUR_SEED, the
 * first failing seed ending it with its exit status. Slurm reruns the whole script after a
 * requeue, and the log is emptied at each run's start, so a result's output is its final run's
 * alone: a partial run's trials are never read as the job's.
 */
export function batchScript(launch: JobLaunch, seeds: number[], log: string): string {
  const argv = launch.argv.map(shQuote).join(' ');
  const lines = [
    '#!/bin/bash',
    `: > ${shQuote(log)}`,
    'if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ]; then echo "== run $((SLURM_RESTART_COUNT + 1)): requeued $SLURM_RESTART_COUNT time(s), the earlier runs\' output is dropped =="; fi',
    'unset RECUR_SEED',
  ];
  if (seeds.length === 0) return [...lines, `exec ${argv}`, ''].join('\n');
  return [
    ...lines,
    `for seed in ${seeds.join(' ')}; do`,
    '  echo "== seed $seed =="',
    `  printf '%s' "$seed" > ${shQuote(seedFile(log))}`,
    `  RECUR_SEED=$seed ${argv}`,
    '  rc=$?',
    '  [ $rc -eq 0 ] || exit $rc',
    'done',
    '',
  ].join('\n');
}
