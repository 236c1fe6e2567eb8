import { buildPrompt } from '../../activities/prompt/build-prompt';
import { jobsUpdate } from '../../workflows/jobs/job-messages';
import { jobWorkflowId } from '../../workflows/jobs/job-workflow';
import { SessionHarness, py } from '../helpers/session-harness';

/** Prints every job of the session once none is queued or running: a test's way to see the ends in one cell. */
const AWAIT_JOBS = `
import time
while any(j["status"] in ("queued", "running") for j in jobs.status()):
    time.sleep(0.2)
for j in jobs.status():
    print(j["id"], j["status"], j["exitCode"], j["reason"])
`;

describe('jobs from the kernel on the local executor (real stack, real processes; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('logs a job\'s life, and its end wakes the session that finished its turn with the job running', async () => {
    const run = await h.run({
      root: [
        py('j = jobs.submit("echo begin; sleep 2; echo seed-$RECUR_SEED done", seeds=[7])\nprint(j["id"], j["status"])'),
        'The job is running; I will read it when it ends.',
        py('print(jobs.status("job-1").logs())'),
        'The job printed seed-7.',
      ],
    }, 'run a job');
    expect(run.result).toEqual({ status: 'completed', answer: 'The job printed seed-7.' });
    const types = run.types();
    expect(types.filter((t) => t.startsWith('Job'))).toEqual(['JobQueued', 'JobStarted', 'JobEnded']);
    expect(run.of('JobQueued')[0]).toMatchObject({ jobId: 'job-1', cpus: 1, seeds: [7], timeoutSeconds: null, executor: 'local' });
    expect(run.of('JobEnded')[0]).toMatchObject({ jobId: 'job-1', outcome: 'finished', exitCode: 0, reason: '' });
    expect(run.of('JobEnded')[0].logTail).toContain('seed-7 done');
    expect(run.of('JobEnded')[0].seconds).toBeGreaterThanOrEqual(2);
    expect(run.of('CellExecuted')[0].outputs).toBe('job-1 queued');
    // The answer did not end the session: it idled until the job's end and then went on, the end in its prompt.
    const answered = types.indexOf('ModelCalled', types.indexOf('CellExecuted'));
    const ended = types.indexOf('JobEnded');
    expect(answered).toBeLessThan(ended);
    expect(types.indexOf('ModelCalled', ended)).toBeGreaterThan(ended);
    expect(run.of('CellExecuted')[1].outputs).toContain('seed-7 done');
    const prompt = buildPrompt(run.sessions.get(run.id)!.slice(0, types.indexOf('ModelCalled', ended)));
    expect(prompt.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('[job job-1 finished in') });
  });

  it('ends jobs as failed, timed out and cancelled; refuses bad submits and other sessions\' ids; runs every seed in order', async () => {
    const run = await h.run({
      root: [
        py(`
a = jobs.submit("sleep 30", timeout=1)
b = jobs.submit("echo s$RECUR_SEED; test $RECUR_SEED != 2 || exit 3", seeds=[1, 2, 3])
c = jobs.submit("sleep 30")
print(c.cancel().id)
for bad in (lambda: jobs.submit("true", cpus=0), lambda: jobs.submit("true", cpus=3), lambda: jobs.cancel("job-99"), lambda: jobs.logs("../../../etc/passwd"), lambda: jobs.submit("x" * 9000)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
${AWAIT_JOBS}`),
        'Done.',
      ],
    }, 'run failing jobs');
    expect(run.result).toEqual({ status: 'completed', answer: 'Done.' });
    const ends = Object.fromEntries(run.of('JobEnded').map((e) => [e.jobId, e]));
    expect(ends['job-1']).toMatchObject({ outcome: 'timed_out', exitCode: null });
    expect(ends['job-2']).toMatchObject({ outcome: 'failed', exitCode: 3 });
    expect(ends['job-2'].logTail).toMatch(/s1[\s\S]*s2/);
    expect(ends['job-2'].logTail).not.toContain('s3');
    expect(ends['job-3']).toMatchObject({ outcome: 'cancelled' });
    const out = run.of('CellExecuted')[0].outputs;
    expect(out).toContain('cpus must be an integer from 1');
    expect(out).toContain('cpus=3 is more than this host\'s job pool has (2, RECUR_JOB_CPUS)');
    expect(out).toContain('no job "job-99" in this session');
    expect(out).toContain('no job "../../../etc/passwd"');
    expect(out).toContain('LimitExceededError');
    expect(out).toMatch(/job-1 timed_out None .*timeout/);
    expect(out).toMatch(/job-2 failed 3 /);
    expect(out).toMatch(/job-3 cancelled None/);
    // Refusals log nothing: three jobs, three ends.
    expect(run.of('JobQueued').map((q) => q.jobId)).toEqual(['job-1', 'job-2', 'job-3']);
  });

  it('holds the host\'s CPU slots: a job asking for the whole pool starts only once the one before it ended', async () => {
    // The test stack's pool is the default RECUR_JOB_CPUS=2.
    const run = await h.run({
      root: [
        py(`
first = jobs.submit("sleep 1; date +%s.%N", cpus=2)
second = jobs.submit("date +%s.%N", cpus=2)
${AWAIT_JOBS}`),
        'Both ran.',
      ],
    }, 'run two whole-pool jobs');
    expect(run.result).toEqual({ status: 'completed', answer: 'Both ran.' });
    const types = run.sessions.get(run.id)!.map((e) => (e.event.type.startsWith('Job') ? `${e.event.type} ${(e.event as { jobId: string }).jobId}` : null)).filter(Boolean);
    expect(types.indexOf('JobStarted job-2')).toBeGreaterThan(types.indexOf('JobEnded job-1'));
    expect(run.of('JobEnded').map((e) => e.outcome)).toEqual(['finished', 'finished']);
  });

  it('starts no job once a limit has ended the run: a kernel thread still submitting during the wrap-up is refused', async () => {
    const run = await h.runInput({
      ...h.input({
        root: [
          py(`
import threading, time
def keep_submitting():
    while True:
        try:
            jobs.submit("true")
        except Exception:
            pass
        time.sleep(0.05)
threading.Thread(target=keep_submitting, daemon=True).start()
time.sleep(1)
print("submitting")`),
          'Still working on it.',
          'Wrap-up: the jobs ran.',
        ],
      }, 'keep submitting jobs', { maxTurns: 2 }),
      goal: { objective: 'keep going', openEnded: false, tokenBudget: null, secondsBudget: null, costBudgetUsd: null },
    });
    expect(run.result).toMatchObject({ status: 'failed', kind: 'max_turns' });
    const types = run.types();
    const wrapUp = run.sessions.get(run.id)!.findIndex((e) => e.event.type === 'ContinuationInjected' && e.event.reason === 'wrap_up');
    expect(wrapUp).toBeGreaterThan(0);
    const queued = types.flatMap((t, i) => (t === 'JobQueued' ? [i] : []));
    expect(queued.length).toBeGreaterThan(1);
    expect(Math.max(...queued)).toBeLessThan(wrapUp);
    // Every job queued before has its end, and the session's end comes last.
    expect(run.of('JobEnded')).toHaveLength(queued.length);
    expect(types.at(-1)).toBe('SessionFailed');
  });

  it('cancels a job still running when the session ends, logging its end before the session\'s, and stops its process', async () => {
    const input = h.input({ root: [py('print(jobs.submit("sleep 60")["id"])'), 'Waiting for the job.'] }, 'leave a job running');
    const session = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [input] });
    const status = async () => {
      const reply = await session.executeUpdate(jobsUpdate, { args: [{ action: 'status', id: null }] });
      return reply.ok ? reply.jobs[0]?.status : reply.reason;
    };
    for (let i = 0; i < 150 && (await status()) !== 'running'; i++) await new Promise((r) => setTimeout(r, 200));
    expect(await status()).toBe('running');
    await session.cancel();
    const result = await h.result(input.sessionId);
    expect(result).toMatchObject({ status: 'failed', kind: 'cancelled' });
    const run = await h.read(input.sessionId, result);
    const types = run.types();
    expect(run.of('JobEnded')).toEqual([expect.objectContaining({ jobId: 'job-1', outcome: 'cancelled', reason: 'the session ended' })]);
    expect(types.indexOf('JobEnded')).toBeLessThan(types.indexOf('SessionFailed'));
    // The executor took the cancellation (killing the process) rather than running the job out.
    const job = h.client.workflow.getHandle(jobWorkflowId(input.sessionId, 'job-1'));
    await job.result();
    const events = (await job.fetchHistory()).events ?? [];
    const scheduled = events.find((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'runJob')!.eventId;
    const completed = events.find((e) => String(e.activityTaskCompletedEventAttributes?.scheduledEventId) === String(scheduled))
      ?.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    const outcome = completed ? (JSON.parse(Buffer.from(completed).toString('utf8')) as { outcome: string }).outcome : null;
    expect(events.some((e) => e.activityTaskCanceledEventAttributes) || outcome === 'cancelled').toBe(true);
  });
});
