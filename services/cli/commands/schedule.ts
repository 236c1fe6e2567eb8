import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { Schedule } from '../../../workflows/long-run-types';
import type { CommandContext } from '../command-context';
import { connectDaemon, sessionPath } from '../daemon-client';

const USAGE = 'usage: recur schedule <session-id> [ls | add "<spec>" "<instruction>" | cancel <schedule-id>] [--json]';

/** Heartbeats and timed prompts of a running session, as the user sees and changes them. */
export async function schedule(ctx: CommandContext): Promise<number> {
  const [sessionId, action = 'ls', ...rest] = ctx.args;
  let body;
  if (action === 'ls' && rest.length === 0) body = { action: 'list' };
  else if (action === 'add' && rest.length === 2) body = { action: 'add', spec: rest[0], instruction: rest[1] };
  else if (action === 'cancel' && rest.length === 1) body = { action: 'cancel', id: rest[0] };
  if (!sessionId || !body) throw new ExitError(2, USAGE);
  const { schedules } = await connectDaemon(loadConfig()).post<{ schedules: Schedule[] }>(sessionPath(sessionId, 'schedules'), body);
  if (ctx.flags.json) ctx.out(JSON.stringify({ sessionId, schedules }));
  else if (schedules.length === 0) ctx.out(`${sessionId} has no active schedules`);
  else for (const s of schedules) ctx.out(`${s.id}  ${s.spec}  next ${s.nextRunAt === null ? '-' : new Date(s.nextRunAt).toISOString()}  runs ${s.runCount}  ${JSON.stringify(s.instruction)}`);
  return 0;
}
