import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownerOnlyUmask, withCallerUmask } from '../../services/home/owner-only';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('owner-only umask', () => {
  let before: number;
  beforeAll(() => { before = process.umask(0o022); });
  afterAll(() => { process.umask(before); });

  it('makes what this process and the processes it starts create owner-only, and tools keep the caller umask', () => {
    ownerOnlyUmask();
    const dir = mkdtempSync(join(tmpdir(), 'recur-owner-only-'));
    writeFileSync(join(dir, 'file'), 'x');
    mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true });
    // A third-party process (Kafka, Temporal, Jupyter) creating a file with the usual 0666.
    expect(spawnSync('/bin/sh', ['-c', `touch ${join(dir, 'child')} && mkdir ${join(dir, 'child-dir')}`]).status).toBe(0);
    withCallerUmask(() => {
      writeFileSync(join(dir, 'tool'), 'x');
      expect(spawnSync('/bin/sh', ['-c', `touch ${join(dir, 'tool-child')}`]).status).toBe(0);
    });
    writeFileSync(join(dir, 'after'), 'x');
    expect(['file', 'sub', 'sub/deeper', 'child', 'child-dir', 'tool', 'tool-child', 'after'].map((p) => [p, mode(join(dir, p))]))
      .toEqual([['file', '600'], ['sub', '700'], ['sub/deeper', '700'], ['child', '600'], ['child-dir', '700'],
        ['tool', '644'], ['tool-child', '644'], ['after', '600']]);
  });
});
