import type { Client } from '@temporalio/client';
import { realpath } from 'node:fs/promises';
import type { BlobStore } from '../../activities/blob-store';
import { openInside } from '../../activities/workspace/open-inside';
import { ScopeError } from '../../errors';
import type { BlobRef } from '../../schemas/generated/events';
import { HARD } from '../../schemas/field-limits';
import { sessionRoot } from '../../schemas/session-ids';
import type { JobExecutor } from '../../workflows/jobs/job-messages';
import { researchUpdate, type ResearchAsk } from '../../workflows/research/research-messages';
import type { HostBridge } from '../host-bridge';
import { withinLimit } from './bridge-values';

const text = (v: unknown, what: string): string => {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ScopeError(`${what} must be a string, got ${JSON.stringify(v)}`);
  return withinLimit(what, v, HARD.idea);
};
const parent = (v: unknown): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ScopeError(`parent must be an experiment's id (a job id such as "job-3"), got ${JSON.stringify(v)}`);
  return v;
};
const integer = (v: unknown, what: string, fallback: number): number => {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number') throw new ScopeError(`${what} must be an integer, got ${JSON.stringify(v)}`);
  return v;
};

/** The most a judged source may be: the task's judge reads no more of train.py than this. */
const MAX_SOURCE_BYTES = 1024 * 1024;
const DEFAULT_FILE = 'train.py';

/**
 * The workspace file the agent named, stored whole in the blob store as it is now: what the
 * judge runs on, however the workspace changes before the job does.
 */
async function snapshot(workspace: string, file: string, blobs: BlobStore): Promise<BlobRef> {
  const handle = await openInside(await realpath(workspace), file);
  if (!handle) throw new ScopeError(`${JSON.stringify(file)} is no regular file inside your workspace`);
  try {
    const { size } = await handle.stat();
    if (size > MAX_SOURCE_BYTES) throw new ScopeError(`${file} is ${size} bytes; the judge reads at most ${MAX_SOURCE_BYTES}`);
    return await blobs.put(await handle.readFile());
  } finally {
    await handle.close();
  }
}

/**
 * `research.*` and `ledger.*` from a kernel: updates on the root of the caller's tree, whose ledger
 * it is (a sub-agent's experiment is the tree's, as its tokens are), naming the caller; the root's
 * workflow decides and logs. The source is read from the caller's workspace (its worktree, for a
 * sub-agent that has one). Nothing here carries a result: the ledger's numbers come only from the
 * host's judge runs (workflows/research).
 */
export function registerResearchOps(bridge: HostBridge, client: Client, o: { blobs: BlobStore; workspaceOf(sessionId: string): string; executor: JobExecutor }): void {
  const ask = async (sessionId: string, req: ResearchAsk, op: string, rid: string | undefined) => {
    const reply = await client.workflow.getHandle(sessionRoot(sessionId)).executeUpdate(researchUpdate, {
      args: [{ ...req, by: sessionId }],
      // The root hears every kernel of its tree: naming the caller keeps one kernel's rid from answering another's.
      ...(rid && { updateId: `${op}-${sessionId}-${rid}` }),
    });
    if (!reply.ok) throw new ScopeError(reply.reason);
    return reply;
  };
  const source = async (sessionId: string, args: Record<string, unknown>) => {
    const file = args.file === undefined || args.file === null ? DEFAULT_FILE : args.file;
    if (typeof file !== 'string' || !file.trim()) throw new ScopeError(`file must be a path in your workspace, got ${JSON.stringify(file)}`);
    try {
      return { file: withinLimit('file', file, HARD.idea), source: await snapshot(o.workspaceOf(sessionId), file, o.blobs) };
    } catch (e) {
      // In a tree with no research task that is the error worth reading, not the missing file.
      await ask(sessionId, { action: 'query', last: 1 }, 'ledger.query', undefined);
      throw e;
    }
  };
  bridge.handle('research.trial', async (sessionId, args, { rid }) => {
    const req = { action: 'trial' as const, trials: integer(args.n, 'n', 1), idea: text(args.idea, 'idea'), parent: parent(args.parent), ...(await source(sessionId, args)), executor: o.executor };
    return (await ask(sessionId, req, 'research.trial', rid)).rows[0];
  });
  bridge.handle('research.submit', async (sessionId, args, { rid }) => {
    const req = { action: 'submit' as const, idea: text(args.idea, 'idea'), parent: parent(args.parent), ...(await source(sessionId, args)), executor: o.executor };
    return (await ask(sessionId, req, 'research.submit', rid)).rows[0];
  });
  bridge.handle('ledger.query', async (sessionId, args) => {
    const { rows, record } = await ask(sessionId, { action: 'query', last: integer(args.last, 'last', 50) }, 'ledger.query', undefined);
    return { rows, record };
  });
  bridge.handle('ledger.annotate', async (sessionId, args, { rid }) => {
    if (typeof args.id !== 'string') throw new ScopeError(`id must be an experiment's id (a job id such as "job-3"), got ${JSON.stringify(args.id)}`);
    return (await ask(sessionId, { action: 'annotate', id: args.id, note: text(args.note, 'note') }, 'ledger.annotate', rid)).rows[0];
  });
}
