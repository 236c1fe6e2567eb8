/** What an operator set that a continued run keeps: the model in use, a compaction not yet made. */
export interface OperatorCarry {
  model: string;
  compactAsked: boolean;
  /** Absent in carries from before throttle waits. */
  throttledMs?: number;
}

/**
 * The session's operator-controlled state (workflows/operator-handlers.ts). Plain data: the model
 * is changed only in the commit of its logged ModelSwitched, so a replay or a continued run
 * (carry) uses the same model the log says it switched to.
 */
export class OperatorControls {
  /** The spec every model call of the session uses from now on. */
  model: string;
  /** The next model call compacts first. */
  compactAsked: boolean;
  /** How long this model has been throttled in all (ModelThrottled waits): the backup takes over past its limit. */
  throttledMs: number;
  /** The CellRequested id of the cell requested (from when its append starts: an operator sees it then) or running; null between cells. */
  cellInFlight: string | null = null;
  /** The cell an operator interrupted, until its result is logged. */
  interruptedCell: string | null = null;
  /** The interrupt is on its way to the kernel: no next cell starts until it is sent. */
  interrupting = false;

  /** `started`: the model the session was started with (SessionInput.model). */
  constructor(started: { model: string }, c?: OperatorCarry) {
    this.model = c?.model ?? started.model;
    this.compactAsked = c?.compactAsked ?? false;
    this.throttledMs = c?.throttledMs ?? 0;
  }

  carry(): OperatorCarry {
    return { model: this.model, compactAsked: this.compactAsked, throttledMs: this.throttledMs };
  }
}
