import type { Kernel } from '@jupyterlab/services';
import { KernelLostError, StackError } from '../../errors';
import { BINDING_INFO_EXPRESSION, type BootstrapParams, bootstrapCode } from './bootstrap-code';
import { stripControls } from '../control-text';
import { rememberProcess } from './kernel-process';

export interface BindingInfo {
  session_id: string;
  /** No agent cell may have run here yet: the host has not marked the namespace caught up with the log. */
  fresh: boolean;
  /** An earlier process of this kernel was caught up and died, with its namespace. */
  restarted: boolean;
  pid: number;
}

/**
 * Runs the bootstrap silently (no history, no execution count, no output to the model) and
 * reads the kernel's binding back. Safe to repeat: a reattaching worker rebinds with its own
 * bridge URL and token.
 */
export async function bindKernel(kernel: Kernel.IKernelConnection, params: BootstrapParams, timeoutMs = 60_000): Promise<BindingInfo> {
  const future = kernel.requestExecute({
    code: bootstrapCode(params),
    silent: true,
    store_history: false,
    allow_stdin: false,
    stop_on_error: false,
    user_expressions: { recur: BINDING_INFO_EXPRESSION },
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      future.dispose();
      reject(new KernelLostError(params.sessionId, kernel.id, `kernel did not answer its bootstrap within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  const done = future.done.catch((err: Error) => {
    throw new KernelLostError(params.sessionId, kernel.id, `kernel lost during bootstrap: ${err.message}`);
  });
  const reply = await Promise.race([done, timeout]).finally(() => clearTimeout(timer));
  const { content } = reply;
  if (content.status === 'error') {
    throw new StackError(
      'jupyter',
      `kernel bootstrap failed: ${content.ename}: ${stripControls(content.evalue)}`,
      'the Jupyter server must run with PYTHONPATH including <repo>/kernel, or pass pythonPath to createKernelClient',
    );
  }
  const expr = content.status === 'ok' ? (content.user_expressions.recur as Record<string, unknown>) : undefined;
  const info = (expr?.data as Record<string, unknown> | undefined)?.['application/json'] as BindingInfo | undefined;
  if (!info || info.session_id !== params.sessionId) {
    throw new StackError('jupyter', `kernel bootstrap did not report a binding for ${params.sessionId}: ${JSON.stringify(expr)}`);
  }
  rememberProcess(kernel, reply.header.session);
  return info;
}
