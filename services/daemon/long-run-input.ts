import { isAbsolute } from 'node:path';
import type { RecurConfig } from '../../config';
import { checkGoalSpec } from '../../workflows/goals';
import type { AutonomousSpec, GoalSpec } from '../../workflows/long-run-types';
import type { SessionLimits } from '../../workflows/session-types';
import type { StartSessionRequest } from './api-types';
import { badRequest } from './http-error';

const MAX_GATES = 20;

const optionalNumber = (v: unknown, key: string): number | null => {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !(v > 0)) throw badRequest(`goal.${key} must be a positive number, got ${JSON.stringify(v)}`);
  return v;
};

/** Validates `goal` of `POST /v1/sessions`. */
export function parseGoal(value: unknown): GoalSpec | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('goal must be an object {objective, openEnded?, tokenBudget?, secondsBudget?, costBudgetUsd?}');
  const g = value as Record<string, unknown>;
  if (g.openEnded !== undefined && typeof g.openEnded !== 'boolean') throw badRequest('goal.openEnded must be a boolean');
  const spec: GoalSpec = {
    objective: typeof g.objective === 'string' ? g.objective : '', openEnded: g.openEnded === true,
    tokenBudget: optionalNumber(g.tokenBudget, 'tokenBudget'), secondsBudget: optionalNumber(g.secondsBudget, 'secondsBudget'),
    costBudgetUsd: optionalNumber(g.costBudgetUsd, 'costBudgetUsd'),
  };
  const bad = checkGoalSpec(spec);
  if (bad) throw badRequest(`goal: ${bad}`);
  return spec;
}

/** Validates `autonomous` of `POST /v1/sessions`: gates are shell commands, gateCwd an absolute directory. */
export function parseAutonomous(value: unknown): StartSessionRequest['autonomous'] {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('autonomous must be an object {gates?, gateCwd?}');
  const a = value as Record<string, unknown>;
  const gates = a.gates ?? [];
  if (!Array.isArray(gates) || gates.length > MAX_GATES || !gates.every((g) => typeof g === 'string' && g.trim() !== '')) {
    throw badRequest(`autonomous.gates must be at most ${MAX_GATES} non-empty command strings`);
  }
  if (a.gateCwd !== undefined && (typeof a.gateCwd !== 'string' || !isAbsolute(a.gateCwd))) throw badRequest('autonomous.gateCwd must be an absolute path');
  return { gates: gates as string[], ...(a.gateCwd !== undefined && { gateCwd: a.gateCwd as string }) };
}

/** The autonomous spec and the overnight-sized limits it brings (request limits still win). */
export function autonomousInput(req: StartSessionRequest['autonomous'], config: RecurConfig): { autonomous: AutonomousSpec | null; limits: Partial<SessionLimits> } {
  if (!req) return { autonomous: null, limits: {} };
  const a = config.autonomous;
  return {
    autonomous: { gates: req.gates, gateTimeoutSeconds: a.gateTimeoutSeconds, gateCwd: req.gateCwd ?? null },
    limits: { maxTurns: a.maxTurns, maxTokens: a.maxTokens, maxSeconds: a.maxSeconds, maxCostUsd: a.maxCostUsd },
  };
}
