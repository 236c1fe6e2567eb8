import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { type CellLoss, watchForLoss } from './run-cell';
import { stripAnsi } from './strip-ansi';

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

type Raced = { kind: 'reply'; reply: KernelMessage.IExecuteReplyMsg } | { kind: 'lost'; reason: string } | { kind: 'timer' };

const EXPRESSION_KEY = 'recur';

/**
 * Runs host bookkeeping code (snapshots, restores) in the kernel: no history, no execution
 * count, no output to anyone. Like `runCell`, it never re-sends the code.
 */
export async function runSilent(kernel: Kernel.IKernelConnection, code: string, opts: RunSilentOptions): Promise<SilentOutcome | CellLoss> {
  const loss = watchForLoss(kernel);
  const timers: NodeJS.Timeout[] = [];
  const timer = (ms: number) => new Promise<Raced>((resolve) => timers.push(setTimeout(() => resolve({ kind: 'timer' }), ms)));
  try {
    const future = kernel.requestExecute({
      code,
      silent: true,
      store_history: false,
      allow_stdin: false,
      stop_on_error: false,
      user_expressions: opts.expression ? { [EXPRESSION_KEY]: opts.expression } : {},
    });
    const done: Promise<Raced> = future.done.then(
      (reply) => ({ kind: 'reply', reply }),
      (err: Error) => ({ kind: 'lost', reason: err.message }),
    );
    let raced = await Promise.race([done, loss.lost as Promise<Raced>, timer(opts.timeoutMs)]);
    if (raced.kind === 'timer') {
      try {
        await opts.interrupt();
      } catch (err) {
        return { lost: 'died', reason: `interrupt after timeout failed: ${(err as Error).message}` };
      }
      raced = await Promise.race([done, loss.lost as Promise<Raced>, timer(opts.interruptGraceMs)]);
      if (raced.kind === 'timer') {
        return { lost: 'stuck', reason: `silent code ignored the interrupt for ${opts.interruptGraceMs} ms after its ${opts.timeoutMs} ms timeout` };
      }
      if (raced.kind === 'reply') return { kind: 'timeout' };
    }
    if (raced.kind !== 'reply') return { lost: 'died', reason: raced.kind === 'lost' ? raced.reason : 'no reply' };
    return outcomeOf(raced.reply.content, opts.expression !== undefined);
  } finally {
    timers.forEach(clearTimeout);
    loss.dispose();
  }
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
    evalue: stripAnsi(e.evalue ?? 'the kernel sent no value for the expression'),
    traceback: stripAnsi((e.traceback ?? []).join('\n')),
  };
}
