import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { awaitReply, type CellLoss } from './run-cell';
import { stripControls } from '../control-text';

export interface RunSilentOptions {
  /** Evaluated after the code; its `application/json` repr (else its text) is the value. */
  expression?: string;
  timeoutMs: number;
  interruptGraceMs: number;
  interrupt: () => Promise<void>;
}

/** What silent code gave back: the expression's value, the Python error, or a timeout (the kernel was interrupted and kept its state). */
export type SilentOutcome =
  | { kind: 'ok'; value: unknown }
  | { kind: 'error'; ename: string; evalue: string; traceback: string }
  | { kind: 'timeout' };

const EXPRESSION_KEY = 'recur';

/**
 * Runs host bookkeeping code (snapshots, restores) in the kernel: no history, no execution
 * count, no output to anyone. Like `runCell`, it never re-sends the code.
 */
export async function runSilent(kernel: Kernel.IKernelConnection, code: string, opts: RunSilentOptions): Promise<SilentOutcome | CellLoss> {
  const future = kernel.requestExecute({
    code,
    silent: true,
    store_history: false,
    allow_stdin: false,
    stop_on_error: false,
    user_expressions: opts.expression ? { [EXPRESSION_KEY]: opts.expression } : {},
  });
  const outcome = await awaitReply(kernel, future, { ...opts, what: 'silent code' });
  if ('lost' in outcome) return outcome;
  if (outcome.timedOut) return { kind: 'timeout' };
  return outcomeOf(outcome.reply.content, opts.expression !== undefined);
}

function outcomeOf(content: KernelMessage.IExecuteReplyMsg['content'], wantsValue: boolean): SilentOutcome {
  if (content.status === 'error') return errorOf(content);
  if (content.status !== 'ok') return { kind: 'error', ename: 'Aborted', evalue: `execute reply status ${content.status}`, traceback: '' };
  if (!wantsValue) return { kind: 'ok', value: undefined };
  const expr = content.user_expressions[EXPRESSION_KEY] as Record<string, unknown> | undefined;
  if (!expr || expr.status === 'error') return errorOf((expr ?? {}) as Partial<KernelMessage.IReplyErrorContent>);
  const data = (expr.data ?? {}) as Record<string, unknown>;
  return { kind: 'ok', value: data['application/json'] ?? data['text/plain'] };
}

function errorOf(e: Partial<KernelMessage.IReplyErrorContent>): SilentOutcome {
  return {
    kind: 'error',
    ename: e.ename ?? 'UnknownError',
    evalue: stripControls(e.evalue ?? 'the kernel sent no value for the expression'),
    traceback: stripControls((e.traceback ?? []).join('\n')),
  };
}
