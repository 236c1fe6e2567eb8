/** Plain data for goals, schedules and autonomous mode: what a session carries across runs. No I/O. */

/** A goal as the user or agent asks for it. */
export interface GoalSpec {
  objective: string;
  /** No end state: only a budget or an operator ends it, never the agent. */
  openEnded: boolean;
  tokenBudget: number | null;
  secondsBudget: number | null;
  costBudgetUsd: number | null;
}

export type GoalStatus = 'active' | 'paused' | 'complete' | 'budget_limited' | 'cleared';

export interface Goal extends GoalSpec {
  status: GoalStatus;
  tokensUsed: number;
  costUsd: number;
  /** Workflow time (ms) the goal was set. */
  setAt: number;
}

export type ScheduleKind = 'once' | 'every' | 'cron';

export interface Schedule {
  id: string;
  kind: ScheduleKind;
  spec: string;
  instruction: string;
  /** Workflow time (ms) of the next tick; null once it will not fire again. */
  nextRunAt: number | null;
  runCount: number;
}

/** Autonomous mode: keep going until the gates pass or a limit ends the run with a wrap-up turn. */
export interface AutonomousSpec {
  /** Shell commands run in order when the agent says it is done; all must exit 0. */
  gates: string[];
  gateTimeoutSeconds: number;
  /** Directory the gates run in (the worker's when null). */
  gateCwd: string | null;
}

/** What goals, schedules and keep-going need from one run to the next (continue-as-new). */
export interface LongRunCarry {
  goal: Goal | null;
  schedules: Schedule[];
  schedulesAdded: number;
  continuations: number;
  gateRounds: number;
  costUsd: number;
  compactions: number;
  cellsRun: number;
}
