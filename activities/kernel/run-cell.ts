import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { onProcessEnd } from './kernel-process';
import { createOutputCollector } from './output-collector';
import type { ExecuteResult } from './types';

export interface RunCellOptions {
  timeoutMs: number;
  maxOutputChars: number;
  /** How long to wait for the KeyboardInterrupt reply after a timeout before giving up on the kernel. */
  interruptGraceMs: number;
  /** Interrupts the kernel through the server's REST API (SIGINT). */
  interrupt: () => Promise<void>;
  /** Sent as the request's `recur_cell` metadata: the kernel keeps this cell's outputs under it for a retry (resume-cell.ts). */
  cellId?: string;
}

/** A cell ended without a reply: the kernel died or restarted, or ignored the interrupt. */
export type CellLoss = { lost: 'died' | 'stuck'; reason: string };

type Outcome = { kind: 'reply'; reply: KernelMessage.IExecuteReplyMsg } | { kind: 'lost'; reason: string } | { kind: 'timer' };

export interface AwaitReplyOptions {
  timeoutMs: number;
  interruptGraceMs: number;
  interrupt: () => Promise<void>;
  /** What the request is, for the reason of a loss ("cell", "silent code"). */
  what: string;
}

/**
 * Waits for an execute request's reply. Past `timeoutMs` it interrupts the kernel (its state
 * stays) and waits `interruptGraceMs` more; `timedOut` says it had to. A kernel that dies,
 * restarts or ignores the interrupt is a loss. Never re-sends anything.
 */
export async function awaitReply(
  kernel: Kernel.IKernelConnection,
  future: Kernel.IShellFuture<KernelMessage.IExecuteRequestMsg, KernelMessage.IExecuteReplyMsg>,
  opts: AwaitReplyOptions,
): Promise<{ reply: KernelMessage.IExecuteReplyMsg; timedOut: boolean } | CellLoss> {
  const loss = watchForLoss(kernel);
  const timers: NodeJS.Timeout[] = [];
  const timer = (ms: number) => new Promise<Outcome>((resolve) => timers.push(setTimeout(() => resolve({ kind: 'timer' }), ms)));
  try {
    const done: Promise<Outcome> = future.done.then(
      (reply) => ({ kind: 'reply', reply }),
      (err: Error) => ({ kind: 'lost', reason: err.message }),
    );
    let outcome = await Promise.race([done, loss.lost, timer(opts.timeoutMs)]);
    const timedOut = outcome.kind === 'timer';
    if (timedOut) {
      try {
        await opts.interrupt();
      } catch (err) {
        return { lost: 'died', reason: `interrupt after timeout failed: ${(err as Error).message}` };
      }
      outcome = await Promise.race([done, loss.lost, timer(opts.interruptGraceMs)]);
      if (outcome.kind === 'timer') {
        return { lost: 'stuck', reason: `${opts.what} ignored the interrupt for ${opts.interruptGraceMs} ms after its ${opts.timeoutMs} ms timeout` };
      }
    }
    if (outcome.kind !== 'reply') return { lost: 'died', reason: outcome.kind === 'lost' ? outcome.reason : 'no reply' };
    return { reply: outcome.reply, timedOut };
  } finally {
    timers.forEach(clearTimeout);
    loss.dispose();
  }
}

/**
 * Runs one cell and collects its output. Never re-sends the cell: a kernel that dies mid-cell
 * comes back as a `CellLoss`, and the caller reports it instead of retrying.
 */
export async function runCell(kernel: Kernel.IKernelConnection, code: string, opts: RunCellOptions): Promise<ExecuteResult | CellLoss> {
  const started = performance.now();
  const collector = createOutputCollector(opts.maxOutputChars);
  const future = kernel.requestExecute(
    { code, silent: false, store_history: true, allow_stdin: false, stop_on_error: false },
    true,
    opts.cellId ? { recur_cell: opts.cellId } : undefined,
  );
  future.onIOPub = (msg) => collector.add(msg);
  const outcome = await awaitReply(kernel, future, { ...opts, what: 'cell' });
  if ('lost' in outcome) return outcome;
  return resultOf(collector, outcome.reply.content, outcome.timedOut, performance.now() - started);
}

/** A finished cell's result from its collected output and execute reply. */
export function resultOf(
  collector: ReturnType<typeof createOutputCollector>,
  content: KernelMessage.IExecuteReplyMsg['content'],
  timedOut: boolean,
  durationMs: number,
): ExecuteResult {
  if (content.status === 'error') collector.setErrorIfMissing(content);
  const output = collector.output();
  const status = timedOut
    ? 'timeout'
    : content.status === 'ok'
      ? 'ok'
      : content.status === 'aborted' || output.error?.ename === 'KeyboardInterrupt'
        ? 'interrupted'
        : 'error';
  const executionCount = 'execution_count' in content && typeof content.execution_count === 'number' ? content.execution_count : null;
  return { status, ...output, durationMs, executionCount };
}

/** Resolves when the kernel dies, restarts (its namespace is gone, whoever restarted it) or its websocket gives up reconnecting. */
export function watchForLoss(kernel: Kernel.IKernelConnection): { lost: Promise<Outcome>; dispose: () => void } {
  let report: (reason: string) => void = () => undefined;
  const lost = new Promise<Outcome>((resolve) => (report = (reason) => resolve({ kind: 'lost', reason })));
  const onStatus = (_: unknown, status: Kernel.Status) => {
    if (status === 'dead' || status === 'restarting' || status === 'autorestarting') report(`kernel ${status}`);
  };
  const onConnection = (_: unknown, status: Kernel.ConnectionStatus) => {
    if (status === 'disconnected') report('kernel websocket disconnected');
  };
  const onDisposed = () => report('kernel connection disposed');
  const stopProcessWatch = onProcessEnd(kernel, () => report('the kernel process was shut down or restarted, so its namespace was reset'));
  kernel.statusChanged.connect(onStatus);
  kernel.connectionStatusChanged.connect(onConnection);
  kernel.disposed.connect(onDisposed);
  if (kernel.isDisposed || kernel.status === 'dead') report(`kernel ${kernel.status}`);
  return {
    lost,
    dispose: () => {
      kernel.statusChanged.disconnect(onStatus);
      kernel.connectionStatusChanged.disconnect(onConnection);
      kernel.disposed.disconnect(onDisposed);
      stopProcessWatch();
    },
  };
}
