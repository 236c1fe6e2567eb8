/** What a running allowance watches: set once it is told to stop, and a promise that settles then. */
export interface LoopStop {
  readonly stopped: boolean;
  readonly told: Promise<void>;
}

/** Allowances told to stop are remembered this long: a stop may reach the worker before the attempt it is for. */
const REMEMBER_MS = 10 * 60_000;

/**
 * The step loops running in this worker, by allowance (activities/step-loop/run-steps.ts), and
 * the stops the workflow sent them. A stop that arrives first (the loop's attempt is still on its
 * way, or being retried) is kept, and that attempt returns at once.
 */
export class LoopStops {
  private readonly running = new Map<string, () => void>();
  private readonly early = new Map<string, number>();

  register(loopId: string): LoopStop {
    let tell: () => void = () => undefined;
    const stop = { stopped: false, told: new Promise<void>((resolve) => (tell = resolve)) };
    this.running.set(loopId, () => {
      stop.stopped = true;
      tell();
    });
    if (this.early.delete(loopId)) this.running.get(loopId)!();
    return stop;
  }

  release(loopId: string): void {
    this.running.delete(loopId);
  }

  stop(loopId: string): void {
    const now = Date.now();
    for (const [id, at] of this.early) if (now - at > REMEMBER_MS) this.early.delete(id);
    const running = this.running.get(loopId);
    if (running) running();
    else this.early.set(loopId, now);
  }
}
