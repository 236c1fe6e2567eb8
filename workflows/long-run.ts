import type { Goal, LongRunCarry, Schedule } from './long-run-types';
import type { SessionInput } from './session-types';
import { newGoal } from './goals';
import type { Spend } from './approvals/approval-policy';

/**
 * What a session keeps for goals, schedules, autonomous mode and compaction: plain fields,
 * carried across continue-as-new. Changes are logged by the caller through SessionLog.emit.
 */
export class LongRun {
  goal: Goal | null;
  readonly schedules: Schedule[];
  schedulesAdded: number;
  continuations: number;
  gateRounds: number;
  costUsd: number;
  compactions: number;
  /** Cells requested so far: with keep-going, the first cell need not come at the first turn. */
  cellsRun: number;
  /** Bumped by every goal or schedule change, so an idle wait can notice one (not carried). */
  version = 0;
  /** A goal from the session's input not yet logged (first run only). */
  readonly goalFromInput: boolean;

  constructor(input: SessionInput, carried: LongRunCarry | undefined, now: number) {
    this.goalFromInput = !carried && !input.carry && !!input.goal;
    this.goal = carried?.goal ?? (this.goalFromInput ? newGoal(input.goal!, now) : null);
    this.schedules = carried?.schedules ?? [];
    this.schedulesAdded = carried?.schedulesAdded ?? 0;
    this.continuations = carried?.continuations ?? 0;
    this.gateRounds = carried?.gateRounds ?? 0;
    this.costUsd = carried?.costUsd ?? 0;
    this.compactions = carried?.compactions ?? 0;
    this.cellsRun = carried?.cellsRun ?? input.carry?.turn ?? 0;
  }

  /** Counts a model call against the session and, while it is active, the goal. */
  recordCall(tokens: number, costUsd: number): void {
    this.costUsd += costUsd;
    if (this.goal?.status === 'active') {
      this.goal.tokensUsed += tokens;
      this.goal.costUsd += costUsd;
    }
  }

  /** Counts a child's reported spend (cumulative, `before` its previous report) against the active goal. */
  recordChildSpend(now: Spend, before: Spend | undefined): void {
    if (this.goal?.status !== 'active') return;
    this.goal.tokensUsed += Math.max(now.tokens - (before?.tokens ?? 0), 0);
    this.goal.costUsd += Math.max(now.costUsd - (before?.costUsd ?? 0), 0);
  }

  goalOpen(): boolean {
    return this.goal?.status === 'active';
  }

  activeSchedules(): Schedule[] {
    return this.schedules.filter((s) => s.nextRunAt !== null);
  }

  carry(): LongRunCarry {
    return {
      goal: this.goal, schedules: this.activeSchedules(), schedulesAdded: this.schedulesAdded,
      continuations: this.continuations, gateRounds: this.gateRounds, costUsd: this.costUsd, compactions: this.compactions,
      cellsRun: this.cellsRun,
    };
  }
}
