/** What one cell produced, shaped for the model and the event log. */
export interface ExecuteResult {
  /**
   * `timeout`: the cell ran past its limit and was interrupted (the kernel kept its state).
   * `interrupted`: stopped by someone's `interrupt()` (KeyboardInterrupt) or aborted.
   */
  status: 'ok' | 'error' | 'timeout' | 'interrupted';
  stdout: string;
  stderr: string;
  /** text/plain of the execute_result (the value of the cell's last expression), if any. */
  result: string | null;
  /** MIME bundles of display_data messages, in order. */
  displays: MimeBundle[];
  error: CellError | null;
  /** True when output passed the client's cap and the rest was dropped (a note ends stdout). */
  truncated: boolean;
  durationMs: number;
  executionCount: number | null;
}

export type MimeBundle = Record<string, unknown>;

export interface CellError {
  ename: string;
  evalue: string;
  /** Traceback lines joined with newlines, ANSI colour codes removed. */
  traceback: string;
}

export interface KernelSessionInfo {
  sessionId: string;
  kernelId: string;
  /**
   * True when the kernel's namespace is new since this client last reported on it: a new
   * kernel, or one the server restarted after it died. The caller restores a snapshot then.
   */
  fresh: boolean;
  /** An earlier process of this kernel served the session and died (the server restarted it). */
  restarted: boolean;
}
