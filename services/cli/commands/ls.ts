import { loadConfig } from '../../../config';
import type { ListSessionsReply, SessionSummary } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { connectDaemon } from '../daemon-client';

const when = (iso: string | null): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-');

export function formatSessionTable(sessions: SessionSummary[]): string[] {
  if (sessions.length === 0) return ['no sessions'];
  const width = Math.max(...sessions.map((s) => s.sessionId.length), 'SESSION'.length);
  const row = (id: string, status: string, start: string, close: string) => `${id.padEnd(width)}  ${status.padEnd(16)}  ${start.padEnd(20)}  ${close}`;
  // An open root (or retained child) waiting for a message shows as idle or unloaded, not as
  // running; one waiting out a provider's rate limit, as throttled until the provider's reset.
  const status = (s: SessionSummary) => (s.phase === 'throttled' && s.throttledUntil ? `throttled until ${when(s.throttledUntil)}` : s.phase ?? s.status);
  return [row('SESSION', 'STATUS', 'STARTED', 'CLOSED'), ...sessions.map((s) => row(s.sessionId, status(s), when(s.startTime), when(s.closeTime)))];
}

export async function ls(ctx: CommandContext): Promise<number> {
  const { sessions } = await connectDaemon(loadConfig()).get<ListSessionsReply>('/v1/sessions');
  if (ctx.flags.json) ctx.out(JSON.stringify({ sessions }));
  else for (const line of formatSessionTable(sessions)) ctx.out(line);
  return 0;
}
