import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { driversOff, gitIn, gitOut, headCommit, repoTop, snapshotCommit } from '../../../activities/workspace/git';
import { RecurError } from '../../../errors';
import type { StoredEvent } from '../../../schemas';
import { endScanOf } from '../../projector';
import type { CiVerdict } from './exit-codes';

export interface BranchRequest {
  name: string;
  /** A remote of the workspace's repository to push the branch to; null: none. */
  push: string | null;
  /** Made even when the run did not pass (exit other than 0). */
  always: boolean;
  /** `Name <email>`; null: the repository's user.name and user.email, else Recur's. */
  author: string | null;
}

const FALLBACK_AUTHOR = { name: 'Recur', email: 'recur@localhost' };

/** The commit message: the answer's first line as the subject, the answer as the body, then trailers tying the commit to its log. */
export function branchMessage(rootId: string, answer: string | null, last: StoredEvent): string {
  const text = (answer ?? '').trim();
  const [first, ...rest] = text.split('\n');
  const long = first.trim().length > 72;
  const subject = first.trim() === '' ? `Recur session ${rootId}` : long ? `${first.trim().slice(0, 71)}…` : first.trim();
  const body = (long ? text : rest.join('\n')).trim();
  return `${subject}\n\n${body ? `${body}\n\n` : ''}Recur-Session: ${rootId}\nRecur-Last-Event: ${last.sessionId}/${last.seq}\nRecur-Chain: ${last.hash}\n`;
}

function parseAuthor(text: string): { name: string; email: string } {
  const m = /^\s*(.+?)\s*<([^<>\s]+@[^<>\s]+)>\s*$/.exec(text);
  if (!m) throw new RecurError(`--branch-author ${JSON.stringify(text)}: expected "Name <email>"`);
  return { name: m[1], email: m[2] };
}

async function authorOf(top: string, flag: string | null): Promise<{ name: string; email: string }> {
  if (flag !== null) return parseAuthor(flag);
  const get = async (key: string) => (await gitIn(top, ['config', '--get', key])).stdout.trim();
  const [name, email] = [await get('user.name'), await get('user.email')];
  return name && email ? { name, email } : FALLBACK_AUTHOR;
}

/** The tree's last logged event: the one its chain ends at, which the commit names. */
const lastEvent = (events: readonly StoredEvent[]): StoredEvent => events.reduce((a, b) => (b.ts >= a.ts ? b : a));

/**
 * `recur run --ci --branch NAME`: the root's workspace as it ended, committed on a new branch of
 * its repository for a reviewer (docs/ci.md). The commit goes on top of HEAD through a scratch
 * index, so the checkout, its index and HEAD are left as they were, with Recur's git settings (no
 * hook or driver of the repository runs). `push` uses the runner's own git credentials, in this
 * process; no kernel ever sees them. Returns the line to print.
 */
export async function makeReviewBranch(o: {
  rootId: string; events: readonly StoredEvent[]; verdict: CiVerdict; branch: BranchRequest;
}): Promise<string> {
  const { name } = o.branch;
  if (o.verdict.code !== 0 && !o.branch.always) return `branch ${name} not made: the run exited ${o.verdict.code} (--branch-always makes it anyway)`;
  const scan = endScanOf(o.events, o.rootId);
  if (!scan) throw new RecurError(`--branch ${name}: ${o.rootId} logged no end scan of its workspace, so there is no net change to commit`);
  const top = await repoTop(scan.workspace);
  if (top === null) throw new RecurError(`--branch ${name}: the workspace ${scan.workspace} is not in a git repository`);
  if ((await gitIn(top, ['check-ref-format', '--branch', name])).code !== 0) throw new RecurError(`--branch ${JSON.stringify(name)} is not a valid branch name`);
  const head = await headCommit(top);
  const completed = o.events.find((e) => e.sessionId === o.rootId && e.event.type === 'SessionCompleted');
  const answer = completed?.event.type === 'SessionCompleted' ? completed.event.answer : null;
  const who = await authorOf(top, o.branch.author);
  const identity = { GIT_AUTHOR_NAME: who.name, GIT_AUTHOR_EMAIL: who.email, GIT_COMMITTER_NAME: who.name, GIT_COMMITTER_EMAIL: who.email };
  const commit = await snapshotCommit(scan.workspace, head, branchMessage(o.rootId, answer, lastEvent(o.events)), await driversOff(top), identity);
  if (head !== null && await gitOut(top, ['rev-parse', `${commit}^{tree}`]) === await gitOut(top, ['rev-parse', `${head}^{tree}`])) {
    return `branch ${name} not made: the session left no change to commit`;
  }
  // The empty old value: refused if the branch exists, so nothing of the user's is moved.
  const made = await gitIn(top, ['update-ref', `refs/heads/${name}`, commit, '']);
  if (made.code !== 0) throw new RecurError(`--branch ${name}: ${made.stderr.trim()}`);
  if (o.branch.push === null) return `branch ${name} made: ${commit}`;
  try {
    await promisify(execFile)('git', ['-c', 'core.hooksPath=/dev/null', 'push', o.branch.push, `refs/heads/${name}:refs/heads/${name}`], {
      cwd: top, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    });
  } catch (e) {
    throw new RecurError(`--push ${o.branch.push}: git push of ${name} failed: ${((e as { stderr?: string }).stderr ?? (e as Error).message).trim()}`);
  }
  return `branch ${name} made: ${commit}, pushed to ${o.branch.push}`;
}
