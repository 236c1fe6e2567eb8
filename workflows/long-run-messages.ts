import { defineUpdate } from '@temporalio/workflow';
import type { Goal, GoalSpec, Schedule } from './long-run-types';

/*
 * Goal and schedule requests from the session's own kernel (or the daemon): updates, because the
 * caller needs the result or the refusal, and each change is logged before the reply.
 */

/** Who asks: an open-ended goal binds the agent; only an operator may complete, pause or clear it. */
export type GoalCaller = 'agent' | 'operator';
export type GoalRequest = { by: GoalCaller } & (
  | { action: 'get' | 'pause' | 'resume' | 'clear' }
  | { action: 'create'; spec: GoalSpec }
  | { action: 'complete'; evidence: string });
export type GoalView = Goal & { secondsUsed: number };
export type GoalReply = { ok: true; goal: GoalView | null } | { ok: false; reason: string };
export const goalUpdate = defineUpdate<GoalReply, [GoalRequest]>('goal');

export type ScheduleRequest =
  | { action: 'list' }
  | { action: 'add'; spec: string; instruction: string }
  | { action: 'cancel'; id: string };
export type ScheduleReply = { ok: true; schedules: Schedule[] } | { ok: false; reason: string };
export const scheduleUpdate = defineUpdate<ScheduleReply, [ScheduleRequest]>('schedule');
