import { Context } from '@temporalio/activity';
import { KernelLostError } from '../errors';
import { inlineOrBlob, type BlobStore } from './blob-store';
import type { ExecuteResult, KernelClient } from './kernel/index';
import type { RunCellInput, RunCellResult } from './session-activities';

/** Output kept inline in CellExecuted and shown to the model; the whole output goes to the blob store beyond it. */
export const INLINE_OUTPUT_CHARS = 8 * 1024;

/** A cell's output as the model reads it: streams, the last expression's value, displays' text, in that order. */
export function renderOutputs(r: ExecuteResult): string {
  const parts = [r.stdout, r.stderr];
  for (const d of r.displays) if (typeof d['text/plain'] === 'string') parts.push(`${d['text/plain']}\n`);
  if (r.result !== null) parts.push(r.result);
  return parts.join('').replace(/\n$/, '');
}

export function createKernelActivities(deps: { kernels: KernelClient; blobs: BlobStore }) {
  const { kernels, blobs } = deps;
  return {
    async runCell(input: RunCellInput): Promise<RunCellResult> {
      const ctx = Context.current();
      const beat = setInterval(() => ctx.heartbeat(), 5_000);
      const stop = () => void kernels.interrupt(input.sessionId).catch(() => undefined);
      ctx.cancellationSignal.addEventListener('abort', stop);
      try {
        const { fresh } = await kernels.start(input.sessionId);
        const r = await kernels.execute(input.sessionId, input.code, { timeoutMs: input.timeoutSeconds * 1000 });
        const lost = fresh && !input.firstCell ? '[note: your kernel was restarted before this cell; variables from earlier cells are gone]\n' : '';
        const text = lost + renderOutputs(r);
        const { preview, blob } = await inlineOrBlob(blobs, text, INLINE_OUTPUT_CHARS);
        const note = blob ? `\n[output truncated: ${text.length} characters in all, ${INLINE_OUTPUT_CHARS} shown; full output is blob ${blob.sha256}]` : '';
        return {
          status: r.status,
          outputs: preview + note,
          outputsBlob: blob,
          durationMs: Math.round(r.durationMs),
          executionCount: r.executionCount,
          errorName: r.error?.ename ?? null,
          errorValue: r.error?.evalue ?? null,
          // The end of a traceback says what failed; keep that part when it is long.
          traceback: r.error ? r.error.traceback.slice(-INLINE_OUTPUT_CHARS) : null,
        };
      } catch (e) {
        if (!(e instanceof KernelLostError)) throw e;
        return {
          status: 'interrupted', outputs: `[the kernel was lost while the cell ran; it was not re-run: ${e.message}]`,
          durationMs: 0, errorName: 'KernelLostError', errorValue: e.message,
        };
      } finally {
        clearInterval(beat);
        ctx.cancellationSignal.removeEventListener('abort', stop);
      }
    },

    shutdownKernel: ({ sessionId }: { sessionId: string }): Promise<void> => kernels.shutdown(sessionId),
  };
}
