import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BlobStore } from '../../activities/blob-store';
import type { JobLaunch } from '../../activities/jobs/job-launch';
import type { JudgeRun } from '../../activities/jobs/job-launch';
import { RecurError } from '../../errors';
import { judgeArgv } from './run-judge';
import { readTask } from './tasks';

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Research experiments on this host: the task's frozen judge from this checkout, as `recur
 * research judge` runs it (python3 -I -B: nothing of the agent's is on its import path, and it
 * reads train.py as text), on the source snapshot taken when the agent asked, not on the
 * workspace as it is by the time the job runs. It prints one verdict line and exits 0 whenever
 * it printed one. On the virtual executor (`onTheClock`) it also reports the run time the judged
 * runs stand for, at the task's `simSecondsPerStep`.
 */
export function judgeLauncher(o: { blobs: BlobStore; dir: string; python?: string; onTheClock?: boolean }): (run: JudgeRun) => Promise<JobLaunch> {
  return async (run) => {
    const task = readTask(run.task);
    if (!task) throw new RecurError(`no research task "${run.task}" on this host (tasks/)`, { retryable: false });
    if (!SHA256.test(run.source.sha256)) throw new RecurError(`not a source snapshot: ${JSON.stringify(run.source.sha256)}`, { retryable: false });
    const workspace = join(o.dir, run.source.sha256);
    const file = join(workspace, 'train.py');
    // Content-addressed: a snapshot written once is the same for every experiment that judges it.
    if (!existsSync(file)) {
      mkdirSync(workspace, { recursive: true });
      writeFileSync(`${file}.tmp`, await o.blobs.get(run.source.sha256));
      renameSync(`${file}.tmp`, file);
    }
    const perStep = o.onTheClock ? task.manifest.simSecondsPerStep : undefined;
    const argv = judgeArgv(task, workspace, {
      problem: run.problem, trials: run.trials, against: run.against, scaleUp: run.scaleUp, exitZero: true, ...(perStep !== undefined && { simSecondsPerStep: perStep }),
    });
    // Outside the sandbox nothing else ties it to its worker: it dies with it, as a sandboxed job does (bwrap's --die-with-parent).
    return { argv: ['setpriv', '--pdeathsig', 'KILL', '--', o.python ?? 'python3', ...argv], cwd: task.dir };
  };
}
