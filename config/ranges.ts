/**
 * The allowed range of every numeric limit, one table for the config module (env and
 * config.json) and for the daemon's requests, so both refuse the same values in the same words.
 * Bounds are sized for real runs (an overnight autonomous job, a deep review tree) while keeping
 * a typo (`maxDepth: 1000`, `cellTimeoutSeconds: 1e12`) from becoming a runaway session.
 */
export interface NumericRange {
  min: number;
  max: number;
  integer: boolean;
}

const int = (min: number, max: number): NumericRange => ({ min, max, integer: true });
const real = (min: number, max: number): NumericRange => ({ min, max, integer: false });

const DAY = 86_400;

export const RANGES = {
  maxTurns: int(1, 100_000),
  maxTokens: int(1, 10_000_000_000),
  maxSeconds: int(1, 30 * DAY),
  maxCostUsd: real(0.01, 1_000_000),
  maxTreeTurns: int(1, 10_000_000),
  cellTimeoutSeconds: int(1, DAY),
  maxDepth: int(0, 8),
  turnsPerRun: int(1, 10_000),
  snapshotEveryCells: int(1, 10_000),
  idleUnloadSeconds: int(1, 30 * DAY),
  autoRefineTurns: int(0, 100_000),
  compactAtTokens: int(100, 100_000_000),
  backupAfterMinutes: int(0, 7 * 24 * 60),
  contextFileMaxBytes: int(256, 1024 * 1024),
  gateTimeoutSeconds: int(1, DAY),
  tokenBudget: int(1, 10_000_000_000),
  secondsBudget: int(1, 365 * DAY),
  costBudgetUsd: real(0.01, 1_000_000),
  transcriptCacheMiB: int(1, 64 * 1024),
  // At least the SDK's 40 concurrent workflow tasks: each needs its workflow in the cache.
  cachedWorkflows: int(40, 100_000),
  jobCpus: int(1, 1024),
  workspaceMaxFileKiB: int(1, 1024 * 1024),
  maxChildren: int(1, 10_000),
  maxTreeSessions: int(1, 1_000_000),
  messagesPerMinute: int(1, 60_000),
  messageBurst: int(1, 10_000),
  maxLoadedKernels: int(1, 10_000),
  // A kernel needs ~100 MiB of address space to start at all; a cap near 1 TiB is no cap.
  sandboxMemoryMiB: int(256, 1_048_576),
  // ipykernel itself runs a handful of threads.
  sandboxMaxProcesses: int(16, 1_000_000),
  sandboxMaxOpenFiles: int(64, 1_048_576),
  sandboxMaxFileMiB: int(1, 1_048_576),
  approvalSpendTokens: int(0, 10_000_000_000),
  approvalSpendUsd: real(0, 1_000_000),
  approvalCiWaitSeconds: int(0, 86_400),
  localThreads: int(1, 256),
  localContextTokens: int(512, 1_048_576),
  localMaxTokens: int(1, 1_048_576),
  uiCodeSeconds: int(10, 3600),
  uiSessionSeconds: int(60, 30 * DAY),
  uiCacheMiB: int(0, 1_048_576),
} satisfies Record<string, NumericRange>;

export type RangeName = keyof typeof RANGES;

/** The range in words, as error messages state it: "an integer 0..8", "a number 0.01..1000000". */
export function describeRange(r: NumericRange): string {
  return `${r.integer ? 'an integer' : 'a number'} ${r.min}..${r.max}`;
}

export function inRange(r: NumericRange, v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && (!r.integer || Number.isInteger(v)) && v >= r.min && v <= r.max;
}
