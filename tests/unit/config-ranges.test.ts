import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configToEnv, defaultConfig, loadConfig, parseConfig } from '../../config';

const home = () => mkdtempSync(join(tmpdir(), 'recur-config-'));

describe('config ranges', () => {
  it('accepts every default, and the defaults survive a round trip through the environment', () => {
    const { config, errors } = parseConfig({ RECUR_HOME: home() });
    expect(errors).toEqual([]);
    expect(parseConfig(configToEnv(config)).errors).toEqual([]);
    expect(config.worker).toEqual(defaultConfig().worker);
  });

  it.each([
    ['RECUR_MAX_DEPTH', '9', 'expected an integer 0..8, got "9"'],
    ['RECUR_MAX_DEPTH', '-1', 'expected an integer 0..8, got "-1"'],
    ['RECUR_MAX_DEPTH', '1.5', 'expected an integer 0..8, got "1.5"'],
    ['RECUR_CELL_TIMEOUT_SECONDS', '86401', 'expected an integer 1..86400, got "86401"'],
    ['RECUR_CELL_TIMEOUT_SECONDS', 'ten', 'expected an integer 1..86400, got "ten"'],
    ['RECUR_CELL_TIMEOUT_SECONDS', ' ', 'expected an integer 1..86400, got " "'],
    ['RECUR_IDLE_UNLOAD_SECONDS', '0', 'expected an integer 1..2592000, got "0"'],
    ['RECUR_AUTONOMOUS_MAX_COST_USD', 'Infinity', 'expected a number 0.01..1000000, got "Infinity"'],
    ['RECUR_TRANSCRIPT_CACHE_MIB', '0', 'expected an integer 1..65536, got "0"'],
    ['RECUR_WORKER_CACHED_WORKFLOWS', '39', 'expected an integer 40..100000, got "39"'],
    ['RECUR_JOB_CPUS', '0', 'expected an integer 1..1024, got "0"'],
  ])('refuses %s=%j naming the variable and the range', (name, value, why) => {
    const { errors } = parseConfig({ RECUR_HOME: home(), [name]: value });
    expect(errors).toEqual([`${name}: ${why}`]);
  });

  it('takes in-range values, including maxDepth 0 (no children)', () => {
    const { config, errors } = parseConfig({ RECUR_HOME: home(), RECUR_MAX_DEPTH: '0', RECUR_TRANSCRIPT_CACHE_MIB: '16', RECUR_WORKER_CACHED_WORKFLOWS: '40', RECUR_JOB_CPUS: '16' });
    expect(errors).toEqual([]);
    expect(config.agent.maxDepth).toBe(0);
    expect(config.worker).toEqual({ transcriptCacheMiB: 16, workspaceMaxFileKiB: 1024, cachedWorkflows: 40, jobCpus: 16, jobExecutor: 'local', slurmPartition: null, sensitivePaths: defaultConfig().worker.sensitivePaths });
  });

  it('takes the Slurm executor and a partition, and refuses another executor or a partition list', () => {
    const { config, errors } = parseConfig({ RECUR_HOME: home(), RECUR_JOB_EXECUTOR: 'slurm', RECUR_SLURM_PARTITION: 'gpu-long' });
    expect(errors).toEqual([]);
    expect(config.worker).toMatchObject({ jobExecutor: 'slurm', slurmPartition: 'gpu-long' });
    expect(parseConfig({ RECUR_HOME: home(), RECUR_JOB_EXECUTOR: 'pbs' }).errors).toEqual(['RECUR_JOB_EXECUTOR: expected local, slurm or virtual, got "pbs"']);
    expect(parseConfig({ RECUR_HOME: home(), RECUR_SLURM_PARTITION: 'a,b' }).errors).toEqual([expect.stringContaining('RECUR_SLURM_PARTITION (config worker.slurmPartition): "a,b" is not one Slurm partition name')]);
    const dir = home();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ worker: { jobExecutor: 'pbs' } }));
    expect(parseConfig({ RECUR_HOME: dir }).errors).toEqual(['RECUR_JOB_EXECUTOR (config worker.jobExecutor): expected local, slurm or virtual, got "pbs"']);
  });

  it('checks numbers from config.json too, naming the variable and the key', () => {
    const dir = home();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ agent: { maxDepth: 50 }, worker: { transcriptCacheMiB: 0.5 } }));
    const { errors } = parseConfig({ RECUR_HOME: dir });
    expect(errors).toEqual([
      'RECUR_MAX_DEPTH (config agent.maxDepth): 50 is out of range; expected an integer 0..8',
      'RECUR_TRANSCRIPT_CACHE_MIB (config worker.transcriptCacheMiB): 0.5 is out of range; expected an integer 1..65536',
    ]);
    expect(() => loadConfig({ RECUR_HOME: dir })).toThrow(/RECUR_MAX_DEPTH \(config agent.maxDepth\): 50 is out of range/);
  });
});
