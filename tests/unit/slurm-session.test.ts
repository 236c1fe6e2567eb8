import type { JobEnded, JobPreempted, JobQueued } from '../../schemas/generated/events';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/*
 * What a session makes of the Slurm executor's reports, through the real workflows (session and
 * job) and the real executor over an in-memory Slurm: the preemption is logged, and a runJob lost
 * with its worker is retried and adopts the Slurm job instead of submitting a second.
 */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'slurm-session';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const run = (input: SessionInput) => world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
const of = <T>(id: string, type: string) => world.events(id).filter((e) => e.type === type) as T[];

test('a preempted and requeued Slurm job is logged as JobPreempted between its start and its end; a lost attempt is retried and adopts the job', async () => {
  const running = (restarts: number) => Array.from({ length: 10 }, () => ({ state: 'RUNNING', restarts, ran: true }));
  world.slurm.plan = [...running(0), { state: 'PENDING', reason: 'BeginTime', restarts: 1 }, ...running(1), { state: 'COMPLETED', restarts: 1, exitCode: 0, ran: true }];
  world.slurm.runEnds = ['PREEMPTED', 'COMPLETED'];
  world.loseFirstJobAttempt = true;
  world.script = {
    root: [{ code: [{ op: 'job', command: 'python train.py' }] }, { answer: 'The job is running.' }, { answer: 'It finished.' }],
  };
  const input = world.input('t');
  await expect(run(input)).resolves.toMatchObject({ status: 'completed', answer: 'It finished.' });
  const id = input.sessionId;
  expect(world.types(id).filter((t) => t.startsWith('Job'))).toEqual(['JobQueued', 'JobStarted', 'JobPreempted', 'JobEnded']);
  expect(of<JobQueued>(id, 'JobQueued')[0]).toMatchObject({ jobId: 'job-1', executor: 'slurm' });
  expect(of<JobPreempted>(id, 'JobPreempted')).toEqual([expect.objectContaining({ jobId: 'job-1', requeued: true, reason: 'preempted by a higher-priority job', slurmId: '100' })]);
  expect(of<JobEnded>(id, 'JobEnded')[0]).toMatchObject({ jobId: 'job-1', outcome: 'finished', exitCode: 0 });
  // The lost attempt's submission is the only one: the retry followed it.
  expect(world.slurm.submitted.map((j) => j.id)).toEqual(['100']);
});
