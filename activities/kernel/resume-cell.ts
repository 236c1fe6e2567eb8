import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { RecurError } from '../../errors';
import { createOutputCollector } from './output-collector';
import { awaitReply, type CellLoss, resultOf } from './run-cell';
import type { ExecuteResult } from './types';

/** What a retried cell activity finds in the session's kernel. */
export type ResumeOutcome =
  /** This kernel process ran the cell (it may have just finished it): what it sent back. */
  | { kind: 'finished'; result: ExecuteResult }
  /** The namespace is caught up with the log and never received the cell: it is safe to run it. */
  | { kind: 'not-received' }
  /** The namespace was never caught up, so no agent cell ran in it; `restarted`: an earlier process of this kernel died. */
  | { kind: 'not-ready'; restarted: boolean };

interface ResumeInfo {
  session_id: string | null;
  ready: boolean;
  restarted: boolean;
  record: {
    outputs: Array<{ msg_type: string; content: Record<string, unknown> }>;
    reply: KernelMessage.IExecuteReplyMsg['content'] | null;
    dropped: number;
    duration_ms: number | null;
  } | null;
}

export interface ResumeCellOptions {
  /** How long the cell may still run; past it the kernel is interrupted and the cell reported as timed out. */
  timeoutMs: number;
  maxOutputChars: number;
  interruptGraceMs: number;
  interrupt: () => Promise<void>;
  /** Python put first in the request, e.g. making `recur_kernel` importable in a kernel nobody bound yet. */
  prelude?: string;
}

/**
 * Asks the kernel about a cell an earlier attempt of the activity may have sent before its
 * worker died. The question is a silent request on the shell channel, which the kernel serves
 * in order: if the cell was received it is answered only once the cell has finished, so the
 * record it returns is complete. Never sends the cell itself.
 */
export async function resumeCell(kernel: Kernel.IKernelConnection, cellId: string, opts: ResumeCellOptions): Promise<ResumeOutcome | CellLoss> {
  const future = kernel.requestExecute({
    code: opts.prelude ?? '',
    silent: true,
    store_history: false,
    allow_stdin: false,
    stop_on_error: false,
    user_expressions: { recur: `__import__('recur_kernel').resume_info(${JSON.stringify(cellId)})` },
  });
  // Past its time the cell is interrupted, as the lost attempt would have done.
  const outcome = await awaitReply(kernel, future, { ...opts, what: 'resumed cell' });
  if ('lost' in outcome) return outcome;
  const info = infoOf(outcome.reply.content, cellId);
  if (!info.ready) return { kind: 'not-ready', restarted: info.restarted };
  if (!info.record) return { kind: 'not-received' };
  const { record } = info;
  if (!record.reply) return { lost: 'died', reason: `the kernel holds no reply for ${cellId}` };
  const collector = createOutputCollector(opts.maxOutputChars);
  for (const o of record.outputs) collector.add({ header: { msg_type: o.msg_type }, content: o.content } as unknown as KernelMessage.IIOPubMessage);
  if (record.dropped) {
    collector.add({ header: { msg_type: 'stream' }, content: { name: 'stdout', text: `\n[${record.dropped} characters of output were not kept by the kernel]\n` } } as unknown as KernelMessage.IIOPubMessage);
  }
  const timedOut = outcome.timedOut && record.reply.status !== 'ok';
  return { kind: 'finished', result: resultOf(collector, record.reply, timedOut, record.duration_ms ?? 0) };
}

function infoOf(content: KernelMessage.IExecuteReplyMsg['content'], cellId: string): ResumeInfo {
  const expr = content.status === 'ok' ? (content.user_expressions.recur as Record<string, unknown> | undefined) : undefined;
  const info = (expr?.data as Record<string, unknown> | undefined)?.['application/json'] as ResumeInfo | undefined;
  if (!info) {
    const why = expr?.status === 'error' ? `${String(expr.ename)}: ${String(expr.evalue)}` : JSON.stringify(content).slice(0, 500);
    throw new RecurError(`could not ask the kernel about cell ${cellId}: ${why}`, { retryable: true });
  }
  return info;
}
