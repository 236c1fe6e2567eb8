import { type Kernel, KernelAPI, KernelConnection, ServerConnection } from '@jupyterlab/services';
import { KernelLostError, RecurError } from '../../errors';
import { bindKernel } from './bind-kernel';
import { createJupyterSessions } from './jupyter-sessions';
import { onProcessEnd } from './kernel-process';
import type { KernelCap } from './kernel-cap';
import { pythonPathCode } from './bootstrap-code';
import { createCellInterrupts } from './cell-interrupts';
import { type ResumeOutcome, resumeCell } from './resume-cell';
import { type CellLoss, runCell } from './run-cell';
import { runSilent } from './run-silent';
import type { ExecuteResult, KernelHost, KernelSessionInfo } from './types';

export interface KernelClientOptions {
  baseUrl: string;
  wsUrl: string;
  token: string;
  /** Lays out each session's sandbox and bridge socket; without a bridge there, `rlm()` etc. raise when called. */
  host: KernelHost;
  /** Prepended to the kernel's sys.path before `import recur_kernel` (the repo's `kernel/` dir). */
  pythonPath?: string;
  kernelName?: string;
  defaultTimeoutMs?: number;
  maxOutputChars?: number;
  interruptGraceMs?: number;
  /** The host's cap on loaded kernels: every new kernel starts through it (kernel-cap.ts). */
  cap?: KernelCap;
}

export interface KernelClient {
  /**
   * The session's kernel: reused if alive, reattached after a worker restart, else started (through
   * the host's cap, which may refuse with LimitError). Binds it to the session.
   */
  start(sessionId: string, opts?: { env?: Record<string, string> }): Promise<KernelSessionInfo>;
  /**
   * After `start` reported a fresh namespace and the caller caught it up with the log (or had
   * nothing to restore): agent cells may run. Until then every `start` reports it fresh again.
   */
  markReady(sessionId: string): Promise<void>;
  /**
   * Runs one cell. Throws KernelLostError if the kernel died mid-cell or its namespace was reset
   * since `start`. With `cellId`, the kernel keeps the cell's outputs under that id for `resume`.
   */
  execute(sessionId: string, code: string, opts?: { timeoutMs?: number; cellId?: string }): Promise<ExecuteResult>;
  /**
   * What became of a cell an earlier attempt may have sent before its worker died: waits up to
   * `timeoutMs` for it to finish (then interrupts it) and returns what it sent back. `gone`: the
   * server holds no kernel for the session. Never sends the cell.
   */
  resume(sessionId: string, cellId: string, opts: { timeoutMs: number }): Promise<ResumeOutcome | { kind: 'gone' }>;
  /**
   * Runs host code (snapshots, restores) unseen by the agent: no history, no output, no
   * execution count. Returns the value of `expression` evaluated afterwards (JSON when it has
   * `_repr_json_`). Throws KernelLostError like `execute`, a RecurError when the code raised
   * (not retryable) or ran past its timeout and was interrupted (retryable).
   */
  runSilent(sessionId: string, code: string, opts?: { expression?: string; timeoutMs?: number }): Promise<unknown>;
  interrupt(sessionId: string): Promise<void>;
  /** An operator's interrupt of the cell executed with `cellId`: it is not run if it has not started, else signalled until it ends (cell-interrupts.ts). */
  interruptCell(sessionId: string, cellId: string): Promise<void>;
  shutdown(sessionId: string): Promise<void>;
  isAlive(sessionId: string): Promise<boolean>;
  /** The kernel id the Jupyter server holds for this session, if any. */
  kernelIdOf(sessionId: string): Promise<string | undefined>;
  /** Closes this client's connections; kernels keep running for the next worker. */
  dispose(): void;
}

interface Entry {
  kernel: Kernel.IKernelConnection;
  bound: boolean;
  /** The namespace is new and the caller has not yet been told (via `start`). */
  freshPending: boolean;
  /** From the last bind: an earlier process of this kernel died. */
  restarted: boolean;
  /** The bound process ended (a restart by anyone): the websocket must be reopened before the next bind. */
  processEnded: boolean;
  /** The server announced the restart (its own auto-restart): @jupyterlab/services reopens the websocket itself. */
  restartAnnounced: boolean;
  env?: Record<string, string>;
}

const BIND_ATTEMPTS = 3;
const BIND_TIMEOUT_MS = 20_000;

/** A cell the operator interrupted before it reached the kernel: it never ran. */
const notRun = (): ExecuteResult => ({
  status: 'interrupted', stdout: '', stderr: '', result: null, displays: [], truncated: false, durationMs: 0, executionCount: null,
  error: { ename: 'KeyboardInterrupt', evalue: 'interrupted by the operator before it ran', traceback: '' },
});

export function createKernelClient(options: KernelClientOptions): KernelClient {
  const settings = ServerConnection.makeSettings({ baseUrl: options.baseUrl, wsUrl: options.wsUrl, token: options.token });
  const sessions = createJupyterSessions(settings, options.kernelName ?? 'python3');
  const entries = new Map<string, Entry>();
  const locks = new Map<string, Promise<unknown>>();
  const maxOutputChars = options.maxOutputChars ?? 2_000_000;
  const interruptGraceMs = options.interruptGraceMs ?? 10_000;

  /** One operation per session at a time: a cell never overlaps a bootstrap or another cell. */
  async function interrupt(sessionId: string): Promise<void> {
    const kernelId = entries.get(sessionId)?.kernel.id ?? (await sessions.find(sessionId))?.kernel?.id;
    if (!kernelId) throw new RecurError(`no kernel for session ${sessionId}`);
    await KernelAPI.interruptKernel(kernelId, settings);
  }
  const cellInterrupts = createCellInterrupts(interrupt);

  function serialized<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    const run = (locks.get(sessionId) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    locks.set(sessionId, tail);
    void tail.then(() => locks.get(sessionId) === tail && locks.delete(sessionId));
    return run;
  }

  /**
   * A bare KernelConnection, not KernelManager.connectTo: the manager's poll leaves a 10 s
   * timer behind after dispose (lumino Poll), and liveness comes from REST calls here anyway.
   */
  function attach(sessionId: string, model: Kernel.IModel, env?: Record<string, string>): Entry {
    const kernel = new KernelConnection({ model, serverSettings: settings, handleComms: false });
    // When the server restarts a kernel the library reconnects by itself and leaves that promise
    // unhandled (KernelConnection's 'restarting' status); if the server reports the kernel dead
    // meanwhile, the connection disposes itself and the rejection would surface as an unhandled
    // one. So its reconnect never rejects: callers read the connection's status after it.
    const reconnect = kernel.reconnect.bind(kernel);
    kernel.reconnect = async () => {
      try {
        await reconnect();
      } catch {
        // Disposed, or out of attempts: the connection's status says so.
      }
    };
    const entry: Entry = { kernel, bound: false, freshPending: false, restarted: false, processEnded: false, restartAnnounced: false, env };
    kernel.statusChanged.connect((_, status) => {
      if (status === 'restarting' || status === 'autorestarting') {
        entry.bound = false;
        entry.restartAnnounced = true;
      }
    });
    // Restarted by anyone (another Jupyter client too): rebind, and the next start() reports the namespace fresh.
    onProcessEnd(kernel, () => {
      entry.bound = false;
      entry.processEnded = true;
    });
    kernel.disposed.connect(() => entries.get(sessionId) === entry && entries.delete(sessionId));
    entries.set(sessionId, entry);
    return entry;
  }

  /**
   * A bootstrap sent while the websocket reconnects (after a restart) can be lost; binding is
   * safe to repeat, so it is tried again on a reconnected socket before the kernel counts as lost.
   */
  async function bindWithRetry(kernel: Kernel.IKernelConnection, params: Parameters<typeof bindKernel>[1]) {
    for (let attempt = 1; ; attempt++) {
      try {
        return await bindKernel(kernel, params, BIND_TIMEOUT_MS);
      } catch (e) {
        if (!(e instanceof KernelLostError) || attempt >= BIND_ATTEMPTS || kernel.isDisposed) throw e;
        await kernel.reconnect();
      }
    }
  }

  async function ensureBound(sessionId: string, create: boolean, env?: Record<string, string>, attempt = 1): Promise<Entry> {
    let entry = entries.get(sessionId);
    // Before rebinding, or on a websocket that is not up, check the kernel was not deleted behind us.
    const suspect = entry && (!entry.bound || entry.kernel.connectionStatus !== 'connected');
    if (suspect && !(await KernelAPI.getKernelModel(entry!.kernel.id, settings))) entry!.kernel.dispose();
    if (entry?.kernel.connectionStatus === 'disconnected') entry.kernel.dispose();
    if (!entry || entry.kernel.isDisposed) {
      // The policy must exist before the server starts the kernel: the server reads it then.
      const start = async () => {
        await options.host.prepare(sessionId);
        return sessions.ensure(sessionId, options.host.place(sessionId).name);
      };
      const model = !create ? await sessions.find(sessionId) : options.cap ? await options.cap.admit(sessionId, start) : await start();
      if (!model?.kernel) throw new KernelLostError(sessionId, '', 'no kernel for this session on the Jupyter server');
      entry = attach(sessionId, model.kernel, env);
    }
    if (env) entry.env = env;
    if (!entry.bound) {
      // The server refreshes its ZeroMQ sockets only for a new websocket: on the old one, the new
      // process's IOPub messages (a request's idle status among them) can go missing for seconds.
      // Never a second reopen beside the library's own: the two leave the connection hanging.
      const reopen = entry.processEnded && !entry.restartAnnounced;
      entry.processEnded = false;
      entry.restartAnnounced = false;
      if (reopen) {
        await entry.kernel.reconnect();
        if (entry.kernel.isDisposed || entry.kernel.connectionStatus !== 'connected') {
          // The server reported the kernel dead mid-restart and the library disposed the
          // connection: the restarted kernel gets a connection of its own.
          const again = env ?? entry.env;
          entry.kernel.dispose();
          if (attempt >= BIND_ATTEMPTS) throw new KernelLostError(sessionId, entry.kernel.id, 'kernel connection closed while the kernel restarted');
          return ensureBound(sessionId, create, again, attempt + 1);
        }
      }
      const { hostUrl, token } = await options.host.prepare(sessionId);
      const info = await bindWithRetry(entry.kernel, {
        sessionId,
        hostUrl,
        token,
        env: entry.env,
        pythonPath: options.pythonPath,
      });
      entry.bound = true;
      entry.freshPending ||= info.fresh;
      entry.restarted = info.restarted;
    }
    return entry;
  }

  /**
   * After a loss the next call rebinds (a restarted kernel reports a fresh namespace). A
   * connection the server restarted is kept: it is reconnecting itself, and the next call reads
   * how that went from its status.
   */
  async function lose(sessionId: string, entry: Entry, loss: CellLoss): Promise<never> {
    const kernelId = entry.kernel.id;
    entry.bound = false;
    if (entry.kernel.connectionStatus === 'disconnected') entry.kernel.dispose();
    let suffix = '';
    if (loss.lost === 'stuck') {
      suffix = '; kernel restarted, namespace lost';
      await KernelAPI.restartKernel(kernelId, settings).catch(() => sessions.remove(sessionId));
    }
    throw new KernelLostError(sessionId, kernelId, `cell did not complete: ${loss.reason}${suffix}`);
  }

  return {
    start: (sessionId, opts = {}) =>
      serialized(sessionId, async () => {
        const entry = await ensureBound(sessionId, true, opts.env);
        const fresh = entry.freshPending;
        entry.freshPending = false;
        return { sessionId, kernelId: entry.kernel.id, fresh, restarted: fresh && entry.restarted };
      }),
    markReady: (sessionId) =>
      serialized(sessionId, async () => {
        const entry = await ensureBound(sessionId, false);
        const outcome = await runSilent(entry.kernel, "__import__('recur_kernel').mark_ready()", {
          timeoutMs: BIND_TIMEOUT_MS, interruptGraceMs, interrupt: () => entry.kernel.interrupt(),
        });
        if ('lost' in outcome) return lose(sessionId, entry, outcome);
        if (outcome.kind !== 'ok') throw new RecurError(`could not mark the kernel of ${sessionId} ready: ${outcome.kind}`, { retryable: true });
        entry.freshPending = false;
      }),
    resume: (sessionId, cellId, opts) =>
      serialized(sessionId, async () => {
        let entry = entries.get(sessionId);
        if (!entry || entry.kernel.isDisposed) {
          const model = await sessions.find(sessionId);
          if (!model?.kernel) return { kind: 'gone' as const };
          entry = attach(sessionId, model.kernel);
        }
        // The cell may be calling the host: a worker that took over must listen on its socket again.
        await options.host.prepare(sessionId);
        const kernel = entry.kernel;
        const outcome = await resumeCell(kernel, cellId, {
          timeoutMs: opts.timeoutMs,
          maxOutputChars,
          interruptGraceMs,
          interrupt: () => kernel.interrupt(),
          prelude: options.pythonPath ? pythonPathCode(options.pythonPath) : undefined,
        });
        return 'lost' in outcome ? lose(sessionId, entry, outcome) : outcome;
      }),
    execute: (sessionId, code, opts = {}) =>
      serialized(sessionId, async () => {
        const entry = await ensureBound(sessionId, false);
        if (entry.freshPending) {
          throw new KernelLostError(sessionId, entry.kernel.id, 'kernel namespace was reset; call start() and restore it');
        }
        const { cellId } = opts;
        if (cellId !== undefined && !cellInterrupts.begin(sessionId, cellId)) return notRun();
        try {
          const outcome = await runCell(entry.kernel, code, {
            cellId,
            timeoutMs: opts.timeoutMs ?? options.defaultTimeoutMs ?? 600_000,
            maxOutputChars,
            interruptGraceMs,
            interrupt: () => entry.kernel.interrupt(),
          });
          return 'lost' in outcome ? lose(sessionId, entry, outcome) : outcome;
        } finally {
          if (cellId !== undefined) cellInterrupts.end(sessionId, cellId);
        }
      }),
    runSilent: (sessionId, code, opts = {}) =>
      serialized(sessionId, async () => {
        const entry = await ensureBound(sessionId, false);
        if (entry.freshPending) {
          throw new KernelLostError(sessionId, entry.kernel.id, 'kernel namespace was reset; call start() and restore it');
        }
        const timeoutMs = opts.timeoutMs ?? options.defaultTimeoutMs ?? 600_000;
        const outcome = await runSilent(entry.kernel, code, {
          expression: opts.expression,
          timeoutMs,
          interruptGraceMs,
          interrupt: () => entry.kernel.interrupt(),
        });
        if ('lost' in outcome) return lose(sessionId, entry, outcome);
        if (outcome.kind === 'timeout') {
          throw new RecurError(`silent code in session ${sessionId} ran past ${timeoutMs} ms and was interrupted`, { retryable: true });
        }
        if (outcome.kind === 'error') {
          const tail = outcome.traceback ? `\n${outcome.traceback.slice(-4000)}` : '';
          throw new RecurError(`silent code in session ${sessionId} raised ${outcome.ename}: ${outcome.evalue}${tail}`);
        }
        return outcome.value;
      }),
    interrupt,
    interruptCell: (sessionId, cellId) => cellInterrupts.interrupt(sessionId, cellId),
    shutdown: (sessionId) =>
      serialized(sessionId, async () => {
        entries.get(sessionId)?.kernel.dispose();
        entries.delete(sessionId);
        await options.host.release(sessionId);
        await sessions.remove(sessionId);
      }),
    async isAlive(sessionId) {
      const kernel = (await sessions.find(sessionId))?.kernel;
      return !!kernel && kernel.execution_state !== 'dead';
    },
    kernelIdOf: async (sessionId) => (await sessions.find(sessionId))?.kernel?.id,
    dispose() {
      for (const entry of entries.values()) entry.kernel.dispose();
      entries.clear();
    },
  };
}
