import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, hostname } from 'node:os';
import { StackError } from '../../errors';
import { aptInstall, canApt } from './install';

type Log = (line: string) => void;

export const SLURM_CONF = '/etc/slurm/slurm.conf';
/** The first line of a slurm.conf this module wrote: one without it is an operator's, never touched. */
const MARK = '# Written by `recur setup --slurm`: a one-node cluster for the Slurm job executor and its tests.';

/**
 * Its two partitions on the one node: jobs go to `recur` (the default); a job in `urgent`, the
 * higher priority tier, preempts them, and they are requeued (what the executor's tests drive).
 */
export const SLURM_PARTITIONS = { default: 'recur', urgent: 'urgent' } as const;

const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' });
/** A daemon that forks itself off: no pipes for it to hold open past its parent's exit. */
const daemon = (cmd: string, args: string[] = []) => spawnSync(cmd, args, { stdio: 'ignore' });
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * slurm.conf for one node, this host, with all its CPUs, shared among jobs by CPU (cons_tres).
 * Without slurmdbd there is no accounting database: `sacct -c` reads the job-completion log
 * (jobcomp/filetxt), and the live state comes from the controller. A requeued job waits
 * cred_expire seconds before it runs again (120 by default), so the tests' requeue is quick.
 * Nor does one start until the scheduler's next pass over pending jobs (every 60 s by default):
 * sched_interval=2 costs nothing on one node. EnforcePartLimits makes sbatch refuse a job no node could ever run, rather than queue it forever.
 */
export function slurmConf(node: string, cpuCount: number): string {
  return `${MARK}
ClusterName=recur
SlurmctldHost=${node}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=cred_expire=5
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MailProg=/bin/true
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
JobRequeue=1
EnforcePartLimits=ALL
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.txt
MinJobAge=300
KillWait=2
ReturnToService=2
NodeName=${node} CPUs=${cpuCount} State=UNKNOWN
PartitionName=${SLURM_PARTITIONS.default} Nodes=${node} Default=YES MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE
PartitionName=${SLURM_PARTITIONS.urgent} Nodes=${node} MaxTime=INFINITE State=UP PriorityTier=10 PreemptMode=OFF
`;
}

function alive(pidFile: string): boolean {
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 0);
    return true;
  } catch {
    return false;
  }
}

function stop(pidFile: string): void {
  try {
    process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 50 && alive(pidFile); i++) sleep(100);
}

/** A one-node cluster answering: the node up and idle or busy with jobs. */
export function slurmReady(): boolean {
  const r = run('sinfo', ['-h', '-N', '-o', '%T']);
  return r.status === 0 && /^(idle|mixed|allocated|completing)/m.test(r.stdout);
}

function startMunge(log: Log): void {
  if (run('munge', ['-n']).status === 0) return;
  if (!existsSync('/etc/munge/munge.key')) run('mungekey', ['--create']);
  mkdirSync('/run/munge', { recursive: true });
  // munged refuses a socket directory others cannot traverse, and a package installed where no
  // systemd-tmpfiles runs may leave it 0700 (Debian's tmpfiles entry says 0755).
  chmodSync('/run/munge', 0o755);
  run('chown', ['-R', 'munge:munge', '/run/munge', '/etc/munge']);
  log('starting munged…');
  if (daemon('runuser', ['-u', 'munge', '--', '/usr/sbin/munged']).status !== 0 || run('munge', ['-n']).status !== 0) {
    throw new StackError('slurm', 'munged did not start', 'see /var/log/munge/munged.log');
  }
}

/**
 * Debian's slurm-wlm and munge, a one-node slurm.conf, and munged, slurmctld and slurmd running
 * (each daemonizes itself: there is no init system to ask). For the Slurm job executor's tests
 * and for a host that runs its jobs on its own Slurm (`recur setup --slurm`; `npm test` asks for
 * it). Idempotent and quick when all is up; as root on Debian only. A slurm.conf it did not write
 * is left alone: that is an operator's cluster, and only its daemons' health is checked.
 */
export function ensureSlurm(log: Log): void {
  // Elsewhere the tests that need it fail saying how to get it (tests/helpers/slurm.ts).
  if (!canApt()) {
    if (!slurmReady()) log('Slurm is not running, and only root on Debian can install and start it here (`recur setup --slurm`)');
    return;
  }
  if (!existsSync('/usr/sbin/slurmctld') || !existsSync('/usr/sbin/munged')) aptInstall(['slurm-wlm', 'munge'], 'for the Slurm job executor', log);
  const ours = !existsSync(SLURM_CONF) || readFileSync(SLURM_CONF, 'utf8').startsWith(MARK);
  const want = slurmConf(hostname().split('.')[0], cpus().length);
  const changed = ours && (!existsSync(SLURM_CONF) || readFileSync(SLURM_CONF, 'utf8') !== want);
  if (changed) {
    mkdirSync('/etc/slurm', { recursive: true });
    writeFileSync(SLURM_CONF, want);
    stop('/run/slurmd.pid');
    stop('/run/slurmctld.pid');
  }
  if (!changed && slurmReady()) return;
  for (const dir of ['/var/spool/slurmctld', '/var/spool/slurmd', '/var/log/slurm']) mkdirSync(dir, { recursive: true });
  startMunge(log);
  if (!alive('/run/slurmctld.pid')) {
    log('starting slurmctld…');
    daemon('/usr/sbin/slurmctld');
  }
  if (!alive('/run/slurmd.pid')) {
    log('starting slurmd…');
    daemon('/usr/sbin/slurmd');
  }
  for (let i = 0; i < 150 && !slurmReady(); i++) sleep(200);
  if (!slurmReady()) {
    const node = run('sinfo', ['-h', '-N', '-o', '%N %T %E']);
    throw new StackError('slurm', `the Slurm node is not up: ${(node.stdout || node.stderr).trim()}`, 'see /var/log/slurm/slurmctld.log and slurmd.log');
  }
}
