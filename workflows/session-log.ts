import { ActivityFailure, ApplicationFailure, CancellationScope, patched } from '@temporalio/workflow';
import type { RecurEventInput } from '../schemas/generated/events';
import type { SessionActivities } from '../activities/session-activities';
import type { AppendEventsInput } from '../activities/event-log';
import type { AppendedFirst, RidingAppend } from '../activities/append-first';
import type { LogHead } from '../activities/step-loop/steps-types';
import type { EventTrace, LogCarry, SessionInput } from './session-types';

const GENESIS = '0'.repeat(64);

/** Whether an activity failed for good at an append: its own, or the one it carried (`SessionLog.withRide`). */
export function appendFailed(e: unknown): boolean {
  return e instanceof ActivityFailure && e.cause instanceof ApplicationFailure && e.cause.type === 'EventLogError';
}

/** Whether the log refused an append as such (the broker's verdict on its bytes), not for want of a broker. */
const appendRefused = (e: unknown): boolean => appendFailed(e) && ((e as ActivityFailure).cause as ApplicationFailure).nonRetryable === true;

/** Events to append, built at the head of the append queue; may await (a signal whose outcome decides them). */
type Build = (firstSeq: number) => RecurEventInput[] | Promise<RecurEventInput[]>;

/** A batch fixed and handed to an activity to append before its work (`ride`), not yet known to be in the log. */
interface Riding {
  input: AppendEventsInput;
  commit: (() => void) | undefined;
}

/** Marks runs whose appends outlive a cancellation, and whose cell requested before one still logs its end (run-requested-cell.ts). */
const APPENDS_OUTLIVE_CANCELLATION = 'appends-outlive-cancellation';
/** Marks runs that scan the workspace before logging a cell's end, and log both in one append. */
const CELL_END_IN_ONE_APPEND = 'cell-end-in-one-append';
/** Marks runs whose step events are appended by the step's next activity, before its work (`ride`). */
const APPENDS_RIDE_ACTIVITIES = 'appends-ride-activities';
/** Marks runs whose ask of the tree's root before a model call carries the riding batch (workflows/tree-budget.ts). */
const TREE_ASK_RIDES = 'tree-ask-rides';
/** Marks runs whose cadence snapshot's KernelSnapshotted rides the next activity (workflows/snapshot-kernel.ts). */
const SNAPSHOT_RIDES = 'snapshot-rides';
/** Marks runs whose cadence snapshot is taken while the next model call runs, not before it (workflows/snapshot-kernel.ts). */
const SNAPSHOT_BESIDE_MODEL = 'snapshot-beside-model';
/** Marks runs whose cell's activity scans the workspace once the cell has ended (workflows/workspace-log.ts). */
const SCAN_IN_CELL = 'scan-in-cell';
/** Marks runs whose plain steps the worker may run, the log handed over to it (workflows/worker-steps.ts). */
const WORKER_RUNS_STEPS = 'worker-runs-steps';

/**
 * The session's writer to its log: one batch at a time, so the log's seq and hash chain have a
 * single writer even while handlers run concurrently. Persists nothing itself. Log first, then
 * state: a change that an event records is made in the batch's commit, which runs only once the
 * batch is appended, so a failed append leaves the state as the log has it.
 */
export class SessionLog {
  readonly id: string;
  nextSeq: number;
  headHash: string;
  /** Set once the session's last event is logged: later appends (a child's late outcome) are refused. */
  closed = false;
  private tail: Promise<unknown> = Promise.resolve();
  /** A batch that rides an activity (`ride`): its seqs are taken, and every later append carries it until it is known to be logged. */
  private riding: Riding | null = null;
  /** The trace ids of the last event the session appended (from the append's result): a riding batch carries them, so each of its writers writes the same bytes. */
  private trace: EventTrace;
  // The order of these asks is part of every recorded history: keep it, and add a new one last.
  /** Asked once per run: a run that began on older code keeps its behaviour to the end. */
  readonly appendsOutliveCancellation = patched(APPENDS_OUTLIVE_CANCELLATION);
  /** Likewise: whether a cell's end and its workspace scan go to the log in one append (workflows/workspace-log.ts). */
  readonly cellEndInOneAppend = patched(CELL_END_IN_ONE_APPEND);
  /** Likewise: whether `ride` hands its batch to the next activity or appends it at once. */
  readonly appendsRide = patched(APPENDS_RIDE_ACTIVITIES);
  /** Likewise: whether a sub-agent's tree-budget ask carries the riding batch, or appends it on its own first. */
  readonly treeAskRides = this.appendsRide && patched(TREE_ASK_RIDES);
  /** Likewise: whether the cadence snapshot's event rides the next activity, or is appended on its own. */
  readonly snapshotRides = this.appendsRide && patched(SNAPSHOT_RIDES);
  /** Likewise: whether the cadence snapshot runs beside the next model call, or after the cell, before it. */
  readonly snapshotBesideModel = this.snapshotRides && patched(SNAPSHOT_BESIDE_MODEL);
  /** Likewise: whether the cell's activity scans the workspace after the cell, or a local activity of the workflow's does. */
  readonly scanInCell = this.cellEndInOneAppend && patched(SCAN_IN_CELL);
  /** Likewise: whether the worker may run plain steps with the log handed over (`handOver`). */
  readonly workerRunsSteps = this.snapshotBesideModel && this.scanInCell && patched(WORKER_RUNS_STEPS);
  /** While the log is handed over (`handOver`): stops the steps it is handed to. */
  private handedTo: (() => void) | null = null;
  /** Set when the log's head is no longer known (a hand-over failed and its log could not be taken back): nothing more is appended. */
  private headLost: string | null = null;
  constructor(readonly input: SessionInput, private readonly acts: Pick<SessionActivities, 'appendEvents'>) {
    const c = input.carry;
    this.id = input.sessionId;
    this.nextSeq = c?.nextSeq ?? 0;
    this.headHash = c?.headHash ?? GENESIS;
    this.trace = c?.trace ?? { traceId: null, spanId: null };
  }

  /**
   * Appends the events `build` returns (none: no append) and then runs `commit`; resolves to the
   * first event's seq. `build` and `commit` run in turn with every other emit, so a check in
   * `build` still holds when `commit` applies it. A failed append skips `commit` and rejects.
   * A riding batch not yet known to be logged goes first in the same append.
   */
  emit(build: Build, commit?: (firstSeq: number) => void): Promise<number> {
    return this.inTurn(async () => {
      const fromSeq = this.nextSeq;
      const events = await build(fromSeq);
      if (events.length > 0) await this.append(this.stamp(events));
      commit?.(fromSeq);
      return fromSeq;
    });
  }

  /**
   * Like `emit`, but the batch is not appended here: it rides the session's next activity that
   * carries one (`withRide`: the model call, the cell, a snapshot, a tree-budget ask), which
   * writes it before its own work. That saves a step the round trip of an append activity of its
   * own. The batch's seqs are taken at once and its timestamps are fixed in the activity's input,
   * so the activity's retries, and any emit that cannot wait for it (a spawn from the cell), write
   * the same bytes, which readers drop as duplicates. `commit` runs once the batch is known to be logged.
   * A run begun before this existed appends at once.
   */
  ride(build: Build, commit?: (firstSeq: number) => void): Promise<number> {
    if (!this.appendsRide) return this.emit(build, commit);
    return this.inTurn(async () => {
      const fromSeq = this.nextSeq;
      const stamped = this.stamp(await build(fromSeq), this.trace);
      const before = this.riding;
      const input = before ? { ...before.input, events: [...before.input.events, ...stamped] } : this.batchOf(stamped);
      this.riding = { input, commit: () => { before?.commit?.(); commit?.(fromSeq); } };
      this.nextSeq = fromSeq + stamped.length;
      return fromSeq;
    });
  }

  /**
   * Runs `activity` with the riding batch, if any, for it to write first, and moves the log's
   * head past the batch once it has. A batch whose carrier failed rides on, to the next append.
   */
  async withRide<R extends AppendedFirst>(activity: (ride: RidingAppend) => Promise<R>): Promise<R> {
    const ride = this.riding;
    const r = await activity(ride ? { append: ride.input } : {});
    if (ride && r.appended) await this.inTurn(() => this.landed(ride, r.appended!.headHash), false);
    return r;
  }

  /** Appends a riding batch on its own: before the session waits, or its head hash travels (a continue-as-new). */
  flush(): Promise<void> {
    return this.inTurn(async () => {
      if (this.riding) await this.append([]);
    });
  }

  private landed(ride: Riding, headHash: string): void {
    // An emit meanwhile may have logged it already, with more after it: the head is then that emit's.
    if (this.riding !== ride) return;
    this.riding = null;
    this.headHash = headHash;
    ride.commit?.();
  }

  /**
   * Before the session's end: a riding batch is written on its own. One the log refuses for good
   * holds bytes the broker refuses, which no carrier can have written either: it is dropped, and
   * the end takes its seqs. Any other failure leaves it to go first in the end's own append.
   */
  settleRide(): Promise<void> {
    return this.inTurn(async () => {
      const ride = this.riding;
      if (!ride) return;
      await this.append([]).catch((e: unknown) => {
        if (!appendRefused(e) || this.riding !== ride) return;
        this.riding = null;
        this.nextSeq = ride.input.fromSeq;
      });
    }).catch(() => undefined);
  }

  /**
   * Hands the log to `run` (the worker's steps, workflows/worker-steps.ts) with its head and the
   * riding batch, for it to write first: no other append is made until it returns (one queued
   * meanwhile calls `stop`), and the head then moves to where it left the log; `land` applies
   * what it did, after the batch's own commit, before any append queued meanwhile. `run`
   * rejecting leaves the head unknown, so nothing more is appended: a writer that may have
   * logged past it must be taken back first, in `run`.
   */
  handOver<R extends { head: LogHead }>(run: (head: LogHead, ride: RidingAppend) => Promise<R>, stop: () => void, land: (r: R) => void): Promise<R> {
    return this.inTurn(async () => {
      const ride = this.riding;
      const head = { nextSeq: ride ? ride.input.fromSeq : this.nextSeq, headHash: this.headHash, trace: this.trace };
      let r: R;
      this.handedTo = stop;
      try {
        r = await run(head, ride ? { append: ride.input } : {});
      } catch (e) {
        this.headLost = (e as Error).message;
        throw e;
      } finally {
        this.handedTo = null;
      }
      // A batch not found logged (the log taken back after failed steps) rides on, to the next append.
      if (ride && r.head.nextSeq <= ride.input.fromSeq) {
        land(r);
        return r;
      }
      this.riding = null;
      ({ nextSeq: this.nextSeq, headHash: this.headHash, trace: this.trace } = r.head);
      ride?.commit?.();
      land(r);
      return r;
    });
  }

  /** Runs `step` after every step queued before it; `logs`: refused once the session has ended. */
  private inTurn<T>(step: () => T | Promise<T>, logs = true): Promise<T> {
    // An append queued behind steps the worker runs (a handler's) stops them: it waits for their end.
    this.handedTo?.();
    const run = this.tail.then(() => {
      if (logs && this.closed) throw ApplicationFailure.nonRetryable(`${this.id} has ended: nothing more is logged`, 'SessionEnded');
      if (logs && this.headLost !== null) throw ApplicationFailure.nonRetryable(`${this.id}'s log head is unknown (${this.headLost}): nothing more is logged`, 'SessionLogLost');
      return step();
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  private stamp(events: RecurEventInput[], trace?: EventTrace): AppendEventsInput['events'] {
    return events.map((event) => ({ ts: Date.now(), ...trace, event }));
  }

  private batchOf(events: AppendEventsInput['events']): AppendEventsInput {
    const { rootId, parentId } = this.input;
    return { sessionId: this.id, rootId, parentId, fromSeq: this.nextSeq, prevHash: this.headHash, events };
  }

  /** Appends `events` after the riding batch, if any, as one batch; moves the head past both and commits the riding one. */
  private async append(events: AppendEventsInput['events']): Promise<void> {
    const ride = this.riding;
    this.riding = null;
    const input = ride ? { ...ride.input, events: [...ride.input.events, ...events] } : this.batchOf(events);
    const append = () => this.acts.appendEvents(input);
    let res;
    try {
      // Never abandoned: a cancelled append activity may still write, so a cancellation waits for
      // it (seconds at most) and goes on from its result; the end logged after it takes the next
      // seq, not this one again with other bytes.
      res = await (this.appendsOutliveCancellation ? CancellationScope.nonCancellable(append) : append());
    } catch (e) {
      // Still not known to be logged: the next append carries it again.
      this.riding ??= ride;
      throw e;
    }
    this.nextSeq = res.nextSeq;
    this.headHash = res.headHash;
    if (res.trace) this.trace = res.trace;
    ride?.commit?.();
  }

  /** The log's head, for a continue-as-new. */
  protected logCarry(): LogCarry {
    // Every path from a ride to a continue-as-new passes an append or the ride's own activity.
    if (this.riding) throw new Error(`${this.id}: a batch from seq ${this.riding.input.fromSeq} is not known to be logged; its head hash cannot be carried`);
    return { nextSeq: this.nextSeq, headHash: this.headHash, trace: this.trace };
  }
}
