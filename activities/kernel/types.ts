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

/**
 * Where one session's kernel lives on its host (laid out by services/sandbox). The kernel, in its
 * sandbox, and the worker see these directories at the same paths.
 */
export interface KernelPlace {
  /** The Jupyter session's name: the key by which the server finds the session's sandbox policy. */
  name: string;
  /** Snapshot pickles the kernel writes, for the worker to check and take into the blob store. */
  spool: string;
  /** Blobs the worker lays out for a restore; read-only to the kernel. */
  restore: string;
  /** The session's skills, materialised for it; read-only to the kernel. */
  skills: string;
  /** The session's workspace: the kernel's working directory and, sandboxed, its one read-write mount of the host. */
  workspace: string;
}

/** What the kernel client asks of the host its kernels run on. */
export interface KernelHost {
  place(sessionId: string): KernelPlace;
  /**
   * Lays out the session's place (policy, directories) and, with a bridge, opens its socket.
   * Returns how its kernel calls the host: `unix:<socket>` and the session's token, or nulls.
   */
  prepare(sessionId: string): Promise<{ hostUrl: string | null; token: string | null }>;
  /** Closes the session's bridge socket: its kernel can call the host no more. */
  release(sessionId: string): Promise<void>;
}
