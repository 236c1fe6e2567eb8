import { execFile } from 'node:child_process';
import { RecurError } from '../../errors';

/** A Slurm job as the controller (or, once it has forgotten it, the job-completion log) last saw it. */
export interface SlurmJobState {
  id: string;
  /** Slurm's base state: PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, CANCELLED, PREEMPTED, … */
  state: string;
  /** Why it waits or ended, in Slurm's word ('None', 'BeginTime', 'Priority', …). */
  reason: string;
  /** Times it was requeued (preempted, its node lost, or `scontrol requeue`). */
  restarts: number;
  /** The batch script's exit status and the signal that ended it (ExitCode=rc:signal); null when not known. */
  exitCode: number | null;
  signal: number | null;
  /** Seconds its current run has run. */
  runSeconds: number;
  /** It was given a node: it started (a job cancelled while pending never was). */
  ran: boolean;
}

export interface SbatchOptions {
  name: string;
  cpus: number;
  /** --time in minutes; null: the partition's limit. */
  minutes: number | null;
  output: string;
  cwd: string;
  partition: string | null;
  /** The job's environment: sbatch passes its own on (--export=ALL). */
  env: NodeJS.ProcessEnv;
}

/** The Slurm commands the executor speaks, as an explicit client (tests and other clusters swap it). */
export interface SlurmClient {
  /** Submits `script` (sbatch --parsable); resolves the Slurm job id. */
  submit(script: string, o: SbatchOptions): Promise<string>;
  /** Ids of every job the controller still holds under `name`, any state, oldest first. */
  findByName(name: string): Promise<string[]>;
  /** The job's state; null when neither the controller nor the completion log knows it. */
  show(id: string): Promise<SlurmJobState | null>;
  /** The states each run of it ended in, oldest first (PREEMPTED, NODE_FAIL, …, then the last), from the completion log; [] without one. */
  history(id: string): Promise<string[]>;
  cancel(id: string): Promise<void>;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { env: opts.env ?? process.env, timeout: 30_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(new RecurError(`${file} could not run: ${error.message}`));
      else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
    // A command that exits before reading its input must not fail the call with EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(opts.input ?? '');
  });
}

async function ok(file: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const r = await run(file, args, opts);
  if (r.code !== 0) throw new RecurError(`${file} ${args[0] ?? ''} exited ${r.code}: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout;
}

/** `[D-]HH:MM:SS` (or `MM:SS`) in seconds. */
export function slurmDuration(text: string): number {
  const [days, clock] = text.includes('-') ? text.split('-') : ['0', text];
  return clock.split(':').reduce((s, part) => s * 60 + Number(part), 0) + Number(days) * 86_400 || 0;
}

const allocated = (nodes: string | undefined) => nodes !== undefined && nodes !== '' && nodes !== '(null)' && nodes !== 'None';

function exitPair(text: string | undefined): Pick<SlurmJobState, 'exitCode' | 'signal'> {
  const m = /^(\d+):(\d+)$/.exec(text ?? '');
  return m ? { exitCode: Number(m[1]), signal: Number(m[2]) } : { exitCode: null, signal: null };
}

/** `scontrol show job -o`'s one line, `Key=value` words; values with spaces (Command, WorkDir) are not read. */
export function parseScontrolJob(line: string): SlurmJobState | null {
  const f = new Map([...line.matchAll(/(?:^|\s)(\w+)=(\S*)/g)].map((m) => [m[1], m[2]]));
  const id = f.get('JobId');
  const state = f.get('JobState');
  if (!id || !state) return null;
  return {
    id, state, reason: f.get('Reason') ?? '', restarts: Number(f.get('Restarts') ?? 0),
    ...exitPair(f.get('ExitCode')), runSeconds: slurmDuration(f.get('RunTime') ?? '0'), ran: allocated(f.get('NodeList')),
  };
}

/**
 * The commands on this machine's PATH. Without slurmdbd, `sacct` reads only the job-completion
 * log (`sacct -c`, JobCompType=jobcomp/filetxt): one line per run's end, no live state, so the
 * live state comes from the controller (`scontrol show job`) while it holds the job (MinJobAge).
 */
export function slurmCli(): SlurmClient {
  const sacct = async (id: string) => {
    const r = await run('sacct', ['-c', '-n', '-P', '-j', id, '-o', 'JobID,State,ExitCode,NodeList,JobName']);
    if (r.code !== 0) return [];
    const rows = r.stdout.split('\n').map((l) => l.split('|')).filter(([jid]) => jid === id);
    // A controller whose saved state was lost numbers jobs from the start again, and the
    // completion log keeps the older jobs' runs under the same ids: only the latest job's count.
    const name = rows.at(-1)?.[4];
    return rows.filter((row) => row[4] === name);
  };
  return {
    async submit(script, o) {
      const args = ['--parsable', `--job-name=${o.name}`, `--cpus-per-task=${o.cpus}`, '--ntasks=1', '--nodes=1', `--output=${o.output}`, '--open-mode=truncate', `--chdir=${o.cwd}`, '--requeue', '--export=ALL'];
      if (o.minutes !== null) args.push(`--time=${o.minutes}`);
      if (o.partition !== null) args.push(`--partition=${o.partition}`);
      // --parsable prints `id` or `id;cluster`.
      return (await ok('sbatch', args, { input: script, env: o.env })).trim().split(';')[0];
    },
    async findByName(name) {
      const out = await ok('squeue', ['-h', '-t', 'all', '-n', name, '-o', '%i']);
      return out.split('\n').map((l) => l.trim()).filter((l) => l !== '').sort((a, b) => Number(a) - Number(b));
    },
    async show(id) {
      const r = await run('scontrol', ['show', 'job', '-o', id]);
      if (r.code === 0) return parseScontrolJob(r.stdout.trim());
      const runs = await sacct(id);
      const last = runs.at(-1);
      if (!last) return null;
      return { id, state: last[1].split(' ')[0], reason: 'None', restarts: runs.length - 1, ...exitPair(last[2]), runSeconds: 0, ran: allocated(last[3]) };
    },
    async history(id) {
      return (await sacct(id)).map(([, state]) => state.split(' ')[0]);
    },
    async cancel(id) {
      await ok('scancel', [id]);
    },
  };
}
