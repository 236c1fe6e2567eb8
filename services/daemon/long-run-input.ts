import { isAbsolute } from 'node:path';
import { RANGES, inRange, type RecurConfig } from '../../config';
import { checkGoalSpec } from '../../workflows/goals';
import type { AutonomousSpec, GoalSpec } from '../../workflows/long-run-types';
import type { SessionLimits } from '../../workflows/session-types';
import type { StartSessionRequest } from './api-types';
import { HttpError } from '../../errors';
import { badRequest, outOfRange } from './http-error';
import type { GoalRequest, ScheduleRequest } from '../../workflows/long-run-messages';

const MAX_GATES = 20;

const optionalNumber = (v: unknown, key: 'tokenBudget' | 'secondsBudget' | 'costBudgetUsd'): number | null => {
  if (v === undefined || v === null) return null;
  if (!inRange(RANGES[key], v)) throw outOfRange(`goal.${key}`, RANGES[key], v, true);
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

/** The autonomous spec and the overnight-sized limits it brings (request limits, e.g. --budget-*, still win). */
export function autonomousInput(req: StartSessionRequest['autonomous'], config: RecurConfig): { autonomous: AutonomousSpec | null; limits: Partial<SessionLimits> } {
  if (!req) return { autonomous: null, limits: {} };
  const a = config.autonomous;
  return {
    autonomous: { gates: req.gates, gateTimeoutSeconds: a.gateTimeoutSeconds, gateCwd: req.gateCwd ?? null },
    limits: { maxTurns: a.maxTurns, maxTokens: a.maxTokens, maxSeconds: a.maxSeconds, maxCostUsd: a.maxCostUsd, maxTreeTurns: a.maxTreeTurns },
  };
}

/** Validates `POST /v1/sessions/:id/goal` (an operator's request): `{action, evidence?}`. */
export function parseGoalAction(body: unknown): GoalRequest {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const action = b.action;
  if (action === 'complete') return { by: 'operator', action, evidence: typeof b.evidence === 'string' ? b.evidence : '' };
  if (action === 'get' || action === 'pause' || action === 'resume' || action === 'clear') return { by: 'operator', action };
  throw badRequest('action must be one of get, pause, resume, clear, complete');
}

/** Validates `POST /v1/sessions/:id/schedules`: `{action: list}`, `{action: add, spec, instruction}` or `{action: cancel, id}`. */
export function parseScheduleAction(body: unknown): ScheduleRequest {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const s = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : '');
  if (b.action === 'list') return { action: 'list' };
  if (b.action === 'add') return { action: 'add', spec: s('spec'), instruction: s('instruction') };
  if (b.action === 'cancel') return { action: 'cancel', id: s('id') };
  throw badRequest('action must be one of list, add, cancel');
}

/** A workflow's refusal as the HTTP answer: the request was understood but conflicts with the session's state. */
export function refusal(reason: string): HttpError {
  return new HttpError(409, reason, 'RefusedError');
}
