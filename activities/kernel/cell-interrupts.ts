/**
 * An operator's interrupt aimed at one cell (`recur interrupt`, Ctrl-C in `recur chat`). The
 * operator sees a cell as soon as its CellRequested is logged, which is before the cell reaches
 * the kernel (a restore may run first), and ipykernel ignores SIGINT outside an execution, so a
 * plain SIGINT sent then would be lost and the cell would run on. So the interrupt is kept for
 * its cell: a cell interrupted before it runs is not run, and one that runs is signalled until
 * it ends (a SIGINT landing just before the kernel starts executing is lost too).
 */

/** Between two SIGINTs to a cell that still runs. */
const RESIGNAL_MS = 1_000;
/** SIGINTs sent before giving up on a cell that ignores them (its timeout still ends it). */
const MAX_SIGNALS = 10;

export interface CellInterrupts {
  /** A cell starts executing; false when the operator interrupted it already (it must not run). */
  begin(sessionId: string, cellId: string): boolean;
  end(sessionId: string, cellId: string): void;
  /** Interrupts `cellId`: now if it runs, else when it would start. */
  interrupt(sessionId: string, cellId: string): Promise<void>;
}

export function createCellInterrupts(signal: (sessionId: string) => Promise<void>, resignalMs = RESIGNAL_MS): CellInterrupts {
  const running = new Map<string, { cellId: string; ended: Promise<void>; end: () => void }>();
  const pending = new Map<string, string>();
  return {
    begin(sessionId, cellId) {
      const asked = pending.get(sessionId) === cellId;
      // An interrupt for a cell that ended before it arrived is stale once another cell starts.
      pending.delete(sessionId);
      if (asked) return false;
      let end = () => undefined as void;
      const ended = new Promise<void>((resolve) => (end = resolve));
      running.set(sessionId, { cellId, ended, end });
      return true;
    },
    end(sessionId, cellId) {
      const run = running.get(sessionId);
      if (run?.cellId !== cellId) return;
      running.delete(sessionId);
      run.end();
    },
    async interrupt(sessionId, cellId) {
      const run = running.get(sessionId);
      if (run?.cellId !== cellId) {
        pending.set(sessionId, cellId);
        return;
      }
      for (let sent = 0; sent < MAX_SIGNALS && running.get(sessionId) === run; sent++) {
        await signal(sessionId);
        await Promise.race([run.ended, new Promise((resolve) => setTimeout(resolve, resignalMs).unref())]);
      }
    },
  };
}
