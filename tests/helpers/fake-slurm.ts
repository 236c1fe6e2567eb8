import type { SbatchOptions, SlurmClient, SlurmJobState } from '../../activities/jobs/slurm-cli';

/**
 * A Slurm controller in memory, for tests of what the session makes of the Slurm executor's
 * reports (the executor itself is tested against a real Slurm: slurm-executor.test.ts). Each job
 * walks through `plan`, one step per `show`; the last step stays.
 */
export class FakeSlurm implements SlurmClient {
  readonly submitted: Array<{ id: string; name: string; options: SbatchOptions }> = [];
  readonly cancelled: string[] = [];
  plan: Array<Partial<SlurmJobState>> = [{ state: 'COMPLETED', exitCode: 0, ran: true }];
  /** What the completion log says each run ended as. */
  runEnds: string[] = [];
  private readonly polls = new Map<string, number>();

  async submit(_script: string, options: SbatchOptions): Promise<string> {
    const id = String(100 + this.submitted.length);
    this.submitted.push({ id, name: options.name, options });
    return id;
  }

  async findByName(name: string): Promise<string[]> {
    return this.submitted.filter((j) => j.name === name).map((j) => j.id);
  }

  async show(id: string): Promise<SlurmJobState | null> {
    if (!this.submitted.some((j) => j.id === id)) return null;
    const n = this.polls.get(id) ?? 0;
    this.polls.set(id, n + 1);
    const step = this.plan[Math.min(n, this.plan.length - 1)];
    return { id, state: 'PENDING', reason: 'None', restarts: 0, exitCode: null, signal: null, runSeconds: 0, ran: false, ...step };
  }

  async history(): Promise<string[]> {
    return this.runEnds;
  }

  async cancel(id: string): Promise<void> {
    this.cancelled.push(id);
  }

  reset(): void {
    this.submitted.length = 0;
    this.cancelled.length = 0;
    this.polls.clear();
    this.plan = [{ state: 'COMPLETED', exitCode: 0, ran: true }];
    this.runEnds = [];
  }
}
