import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { git, gitIn } from '../../activities/workspace/git';
import { RecurError } from '../../errors';

// activities/workspace/git.ts runs git from a small spawner process, not from the process that asks.

/** The pid of the process that started the git running this alias (its shell's parent's parent). */
const PARENT = ['-c', 'alias.parent=!awk \'{print $4}\' /proc/$PPID/stat', 'parent'];
const parentOfGit = async () => Number((await git(PARENT)).stdout.toString('utf8').trim());
/** The command line a pid was started with. */
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

describe('git runs from a spawner', () => {
  it('starts every git from one small Node process, never from this one', async () => {
    const first = await parentOfGit();
    const second = await parentOfGit();
    expect(first).not.toBe(process.pid);
    expect(second).toBe(first);
    const cmd = cmdline(first);
    expect(cmd[0]).toBe(process.execPath);
    expect(cmd[1]).toBe('-e');
  });

  it('passes input, output and exit codes through', async () => {
    // git's object id of the blob "hello\n", fixed by its format.
    const hashed = await git(['hash-object', '--stdin'], { input: 'hello\n' });
    expect(hashed.stdout.toString('utf8').trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    expect(Buffer.isBuffer(hashed.stdout)).toBe(true);
    const missing = await gitIn(tmpdir(), ['rev-parse', '--verify', '-q', 'no-such-ref']);
    expect(missing.code).not.toBe(0);
    await expect(git(['rev-parse', '--verify', 'no-such-ref'], { cwd: tmpdir() })).rejects.toThrow(/git rev-parse exited 128/);
  });

  it('reports a git that cannot start as before, and the spawner lives on', async () => {
    const spawnerPid = await parentOfGit();
    await expect(gitIn(join(tmpdir(), 'recur-no-such-dir-', String(process.pid)), ['status'])).rejects.toThrow(/git could not start/);
    // Node refuses these arguments before any process starts: an answer, not the spawner's end.
    await expect(git(['status\0--help'])).rejects.toThrow(/git could not start: .*null bytes/);
    expect(await parentOfGit()).toBe(spawnerPid);
  });

  it('fails the runs in flight when the spawner dies, retryable, and starts a new one for the next', async () => {
    const before = await parentOfGit();
    expect(before).not.toBe(process.pid);
    const slow = git(['-c', 'alias.nap=!sleep 1', 'nap']);
    process.kill(before, 'SIGKILL');
    const lost = await slow.then(() => null, (e: unknown) => e);
    expect(lost).toBeInstanceOf(RecurError);
    expect((lost as RecurError).message).toMatch(/spawner exited \(SIGKILL\)/);
    expect((lost as RecurError).retryable).toBe(true);
    const after = await parentOfGit();
    expect(after).not.toBe(before);
    expect((await git(['--version'])).stdout.toString('utf8')).toMatch(/^git version /);
  });
});
