import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore } from '../activities/blob-store';
import { createWorkspaceActivities } from '../activities/workspace/scan-workspace';
import { size, type Benchmark } from './benchmark';
import { compare } from './report';

const PER_DIR = 100;

/** A committed git repository of `files` small text files (100 a directory) plus an ignored node_modules. */
function makeRepo(dir: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const d = join(dir, 'src', `d${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(d, { recursive: true });
    writeFileSync(join(d, `f${i}.txt`), `file ${i}\n${'some content line\n'.repeat(5)}`);
  }
  mkdirSync(join(dir, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'fixture');
}

/**
 * CPU milliseconds this process and its reaped children (the git runs) have used: on a loaded
 * machine wall time mostly measures the wait for a core, this does not. Children's time comes
 * in clock ticks (10 ms), so it is read over many scans.
 */
function cpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /, '').split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) * 10;
  const own = process.cpuUsage();
  return children + (own.user + own.system) / 1000;
}

const fileOf = (dir: string, i: number) => join(dir, 'src', `d${Math.floor(i / PER_DIR)}`, `f${i}.txt`);

/**
 * Per-cell cost of the workspace scan (activities/workspace) on a git checkout where each cell
 * edits two files, adds one and deletes one, against `git status` on the same checkout in the
 * same run: the scan's floor is git's own stat walk.
 */
export const workspaceScan: Benchmark = {
  name: 'workspace-scan',
  async run(ctx) {
    const files = size(ctx, 10_000, 500);
    const runs = size(ctx, 40, 4);
    const tmp = mkdtempSync(join(tmpdir(), 'recur-bench-ws-'));
    try {
      const ws = join(tmp, 'repo');
      mkdirSync(ws);
      makeRepo(ws, files);
      const acts = createWorkspaceActivities({
        blobs: createLocalBlobStore(join(tmp, 'blobs')), root: join(tmp, 'state'), maxFileBytes: 1024 * 1024,
        places: { place: () => ({ name: 'b', spool: '', restore: '', skills: '', workspace: ws }) },
      });
      let seq = 0;
      const scan = (reason: 'start' | 'cell') => acts.scanWorkspace({ sessionId: 'b', reason, requestId: null, key: `b/${seq++}`, startManifest: null });
      const t0 = performance.now();
      await scan('start');
      const firstMs = performance.now() - t0;
      const changed: number[] = [];
      const unchanged: number[] = [];
      const status: number[] = [];
      let changedCpu = 0;
      for (let r = 0; r < runs; r++) {
        appendFileSync(fileOf(ws, (r * 37) % files), `edit ${r}\n`);
        appendFileSync(fileOf(ws, (r * 53 + 11) % files), `edit ${r}\n`);
        writeFileSync(join(ws, `new-${r}.txt`), `new ${r}\n`);
        unlinkSync(fileOf(ws, files - 1 - r));
        let t = performance.now();
        const cpu0 = cpuMs();
        const { event } = await scan('cell');
        changed.push(performance.now() - t);
        changedCpu += cpuMs() - cpu0;
        if (event?.filesTotal !== 4) throw new Error(`scan ${r} saw ${event?.filesTotal ?? 0} changes, not 4`);
        t = performance.now();
        if ((await scan('cell')).event !== null) throw new Error('a scan with nothing changed logged an event');
        unchanged.push(performance.now() - t);
        t = performance.now();
        execFileSync('git', ['status', '--porcelain'], { cwd: ws, stdio: 'ignore' });
        status.push(performance.now() - t);
      }
      const limits = `${files} files in a git checkout, ${runs} cells; wall time on this machine (2 busy cores) through the real activity: git plumbing processes and the local blob store`;
      return [
        compare({
          name: 'workspace-scan/changed', title: `Workspace scan after a cell that changed 4 of ${files} files (target ≤ 50 ms median)`, unit: 'ms', better: 'lower',
          subject: { label: 'scan + diff + blobs', samples: changed }, baseline: { label: 'git status', samples: status },
          limits, details: { files, runs, firstScanMs: Math.round(firstMs), cpuMsPerChangedScan: Math.round(changedCpu / runs), loadAverage: loadavg()[0] },
        }),
        compare({
          name: 'workspace-scan/unchanged', title: `Workspace scan after a cell that changed nothing (${files} files)`, unit: 'ms', better: 'lower',
          subject: { label: 'scan, no event', samples: unchanged }, baseline: { label: 'git status', samples: status }, limits,
        }),
      ];
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
};
