import type { KernelMessage } from '@jupyterlab/services';
import { stripControls } from '../control-text';
import type { CellError, ExecuteResult, MimeBundle } from './types';

export type CollectedOutput = Pick<ExecuteResult, 'stdout' | 'stderr' | 'result' | 'displays' | 'error' | 'truncated'>;

/** A traceback is kept even past the output cap, but not without limit. */
const MAX_TRACEBACK_CHARS = 64 * 1024;

/**
 * Folds one cell's iopub messages into text for the model. Everything past `maxChars`
 * (stream text plus serialized displays) is counted and dropped, so a cell that prints in a
 * loop cannot grow the worker's memory without bound.
 */
export function createOutputCollector(maxChars: number) {
  let stdout = '';
  let stderr = '';
  let result: string | null = null;
  const displays: MimeBundle[] = [];
  let error: CellError | null = null;
  let used = 0;
  let dropped = 0;

  const take = (text: string): string => {
    const room = Math.max(0, maxChars - used);
    const kept = text.length <= room ? text : text.slice(0, room);
    used += kept.length;
    dropped += text.length - kept.length;
    return kept;
  };

  return {
    add(msg: KernelMessage.IIOPubMessage): void {
      const c = msg.content as Record<string, unknown>;
      switch (msg.header.msg_type) {
        case 'stream':
          if (c.name === 'stderr') stderr += take(String(c.text));
          else stdout += take(String(c.text));
          break;
        case 'execute_result': {
          const text = (c.data as MimeBundle)['text/plain'];
          result = typeof text === 'string' ? take(text) : null;
          break;
        }
        case 'display_data': {
          const bundle = c.data as MimeBundle;
          const size = JSON.stringify(bundle).length;
          if (used + size <= maxChars) {
            used += size;
            displays.push(bundle);
          } else {
            dropped += size;
          }
          break;
        }
        case 'error':
          error = {
            ename: String(c.ename),
            evalue: stripControls(String(c.evalue)),
            traceback: stripControls((c.traceback as string[]).join('\n')).slice(-MAX_TRACEBACK_CHARS),
          };
          break;
      }
    },
    /** The error from the execute reply, when no iopub `error` message carried it. */
    setErrorIfMissing(e: { ename: string; evalue: string; traceback: string[] }): void {
      if (!error) error = { ename: e.ename, evalue: stripControls(e.evalue), traceback: stripControls(e.traceback.join('\n')) };
    },
    output(): CollectedOutput {
      const note = dropped ? `\n[output truncated: ${dropped} more characters not shown]\n` : '';
      return { stdout: stdout + note, stderr, result, displays: [...displays], error, truncated: dropped > 0 };
    },
    get error(): CellError | null {
      return error;
    },
  };
}
