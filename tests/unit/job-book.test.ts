import { JobBook, MAX_ACTIVE_JOBS } from '../../workflows/jobs/job-book';
import { checkSubmit } from '../../workflows/jobs/job-handlers';
import type { JobView } from '../../workflows/jobs/job-messages';

const view = (id: string): JobView => ({ id, command: 'true', cpus: 1, seeds: [], timeoutSeconds: null, status: 'queued', exitCode: null, seconds: null, reason: '' });
const submit = (over: Partial<{ command: string; cpus: number; seeds: number[]; timeoutSeconds: number | null }> = {}) =>
  ({ action: 'submit' as const, command: 'python train.py', cpus: 1, seeds: [], timeoutSeconds: null, ...over });

describe('a session\'s jobs', () => {
  it('numbers jobs across continue-as-new and keeps the last 200 ended ones, never an active one', () => {
    let book = new JobBook();
    for (let i = 0; i < 260; i++) {
      const job = view(book.nextId());
      book.add(job);
      if (i !== 3) book.end(job, 'finished', 0, 1, '');
    }
    expect(book.active().map((j) => j.id)).toEqual(['job-4']);
    expect(book.all()).toHaveLength(201);
    expect(book.get('job-1')).toBeUndefined();
    expect(book.get('job-4')?.status).toBe('queued');
    book = new JobBook(JSON.parse(JSON.stringify(book.carry())));
    expect(book.nextId()).toBe('job-261');
    expect(book.ended).toBe(0);
  });

  it('counts a running job\'s preemptions, also on a view carried from before it counted them, and keeps it active', () => {
    const book = new JobBook({ jobs: [{ ...view('job-1'), status: 'running' }], submitted: 1 });
    const job = book.get('job-1')!;
    book.preempt(job);
    book.preempt(job);
    expect(job).toMatchObject({ status: 'running', preemptions: 2 });
    expect(book.active()).toEqual([job]);
  });

  it('refuses submits it cannot run as asked, saying why', () => {
    expect(checkSubmit(submit(), 0)).toBeNull();
    expect(checkSubmit(submit({ command: '  ' }), 0)).toMatch(/non-empty command/);
    expect(checkSubmit(submit({ cpus: 0 }), 0)).toMatch(/cpus must be an integer from 1/);
    expect(checkSubmit(submit({ cpus: 1.5 }), 0)).toMatch(/cpus must be an integer/);
    expect(checkSubmit(submit({ seeds: [1, 2.5] }), 0)).toBe('seeds must be integers');
    expect(checkSubmit(submit({ seeds: Array.from({ length: 1001 }, (_, i) => i) }), 0)).toMatch(/at most 1000 seeds/);
    expect(checkSubmit(submit({ timeoutSeconds: 0 }), 0)).toMatch(/timeout must be whole seconds/);
    expect(checkSubmit(submit(), MAX_ACTIVE_JOBS)).toMatch(/at most 50 jobs queued or running/);
  });
});
