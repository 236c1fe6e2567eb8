import fs from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { statFingerprint, type FingerprintOptions } from '../../activities/workspace/stat-fingerprint';

/** The walk that lets a scan skip git: what it proves, and what it leaves to git. */
describe('stat fingerprint', () => {
  let dir: string;
  const opts = (o: Partial<FingerprintOptions> = {}): FingerprintOptions => ({ also: [], maxEntries: 100, settleMs: 2_000, maxRecentBytes: 1024, ...o });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'recur-fp-'));
  });
  afterEach(() => {
    jest.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The file's bytes change while its stat reads as before: two writes within one tick of a coarse timestamp clock. */
  function rewriteKeepingStat(file: string, text: string): void {
    const before = fs.lstatSync(file, { bigint: true });
    writeFileSync(file, text);
    const real = fs.lstatSync;
    jest.spyOn(fs, 'lstatSync').mockImplementation(((p: fs.PathLike, o?: fs.StatOptions) => (p === file ? before : real(p, o as never))) as typeof fs.lstatSync);
  }

  test('an entry changed within the settle window is hashed by its bytes: a rewrite its stat does not show still changes the fingerprint', () => {
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'one\n');
    const first = statFingerprint(dir, opts()).print;
    rewriteKeepingStat(file, 'two\n');
    const second = statFingerprint(dir, opts()).print;
    expect(first).not.toBeNull();
    expect(second).not.toBe(first);
  });

  test('an entry older than the window is known by its stat alone, which is why the window must cover a timestamp tick', () => {
    const file = join(dir, 'a.txt');
    writeFileSync(file, 'one\n');
    const later = () => Date.now() + 10_000;
    const first = statFingerprint(dir, opts({ now: later })).print;
    rewriteKeepingStat(file, 'two\n');
    expect(statFingerprint(dir, opts({ now: later })).print).toBe(first);
  });

  test('entries, recent bytes and .git: what the walk counts, reads and skips', () => {
    writeFileSync(join(dir, 'a.txt'), 'x'.repeat(600));
    writeFileSync(join(dir, 'b.txt'), 'x'.repeat(600));
    expect(statFingerprint(dir, opts())).toEqual({ print: null, why: 'recent-bytes' });
    expect(statFingerprint(dir, opts({ now: () => Date.now() + 10_000 })).print).toMatch(/^[0-9a-f]{64}$/);
    expect(statFingerprint(dir, opts({ maxEntries: 1, maxRecentBytes: 10_000 }))).toEqual({ print: null, why: 'entries' });
    const before = statFingerprint(dir, opts({ maxRecentBytes: 10_000 })).print;
    fs.mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    expect(statFingerprint(dir, opts({ maxRecentBytes: 10_000 })).print).toBe(before);
    expect(statFingerprint(join(dir, 'missing'), opts())).toEqual({ print: null, why: 'unreadable' });
  });

  test('a file it is told of besides the workspace (an exclude file) is part of the fingerprint, present or not', () => {
    const exclude = join(dir, 'exclude');
    const ws = join(dir, 'ws');
    fs.mkdirSync(ws);
    const absent = statFingerprint(ws, opts({ also: [exclude] })).print;
    writeFileSync(exclude, '*.log\n');
    expect(statFingerprint(ws, opts({ also: [exclude] })).print).not.toBe(absent);
  });
});
