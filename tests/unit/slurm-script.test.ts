import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseScontrolJob, slurmDuration } from '../../activities/jobs/slurm-cli';
import { batchScript, seedFile, slurmJobName } from '../../activities/jobs/slurm-script';

describe('the Slurm executor\'s pieces', () => {
  it('reads scontrol\'s one-line job record', () => {
    const line = 'JobId=41 JobName=recur.s.job-1 JobState=PENDING Reason=BeginTime Dependency=(null) Requeue=1 Restarts=2 BatchFlag=1 ExitCode=3:9 RunTime=1-02:03:04 ReqNodeList=(null) NodeList=(null) BatchHost=vm';
    expect(parseScontrolJob(line)).toEqual({ id: '41', state: 'PENDING', reason: 'BeginTime', restarts: 2, exitCode: 3, signal: 9, runSeconds: 93_784, ran: false });
    expect(parseScontrolJob('JobId=7 JobState=COMPLETED NodeList=vm ExitCode=0:0 RunTime=00:01')).toMatchObject({ state: 'COMPLETED', exitCode: 0, runSeconds: 1, ran: true });
    expect(parseScontrolJob('slurm_load_jobs error: Invalid job id specified')).toBeNull();
    expect(slurmDuration('00:00:05')).toBe(5);
  });

  it('names a job after its session and id, and keeps names squeue could split apart and distinct', () => {
    expect(slurmJobName('sess-1', 'job-2')).toBe('recur.sess-1.job-2');
    const a = slurmJobName('a,b c', 'job-1');
    expect(a).toMatch(/^recur\.a_b_c\.job-1\.[0-9a-f]{12}$/);
    expect(a).not.toBe(slurmJobName('a b,c', 'job-1'));
  });

  it('writes a script that runs the launch line per seed, stops at the first failure, and empties the log at each run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slurm-script-'));
    const log = join(dir, 'job.log');
    writeFileSync(log, 'an earlier run\'s partial output\n');
    const script = join(dir, 'job.sh');
    writeFileSync(script, batchScript({ argv: ['bash', '-c', 'echo "it\'s $RECUR_SEED"; [ "$RECUR_SEED" != 2 ]'], cwd: dir }, [1, 2, 3], log));
    let code = 0;
    try {
      // As slurmd runs it, output into the log, here on the second run of a requeued job.
      execFileSync('bash', ['-c', `bash ${script} >> ${log} 2>&1`], { env: { ...process.env, SLURM_RESTART_COUNT: '1', RECUR_SEED: '99' } });
    } catch (e) {
      code = (e as { status: number }).status;
    }
    expect(code).toBe(1);
    expect(readFileSync(log, 'utf8')).toBe('== run 2: requeued 1 time(s), the earlier runs\' output is dropped ==\n== seed 1 ==\nit\'s 1\n== seed 2 ==\nit\'s 2\n');
    expect(readFileSync(seedFile(log), 'utf8')).toBe('2');
  });
});
