import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { readLogInOrder } from '../../projector/read-log-in-order';
import { verifyTree, type AuditProblem, type TreeVerdict } from '../../projector/verify-tree';
import { kafkaClient } from '../../devstack';
import type { CommandContext } from '../cli';

const USAGE = 'usage: recur audit verify <session-id> [--json]';

/** Where a problem is, for people: the event, or the session and offset of an undecodable record. */
export function problemSite(p: AuditProblem): string {
  return p.eventId ?? p.sessionId ?? '?';
}

export function formatVerdict(v: TreeVerdict): string[] {
  const counts = `${v.sessions.length} session${v.sessions.length === 1 ? '' : 's'}, ${v.events} events`
    + (v.duplicates > 0 ? ` (${v.duplicates} retried cop${v.duplicates === 1 ? 'y' : 'ies'} dropped)` : '');
  const width = Math.max(0, ...v.sessions.map((s) => s.sessionId.length));
  const heads = v.sessions.map((s) =>
    `  ${s.sessionId.padEnd(width)}  ${String(s.events).padStart(5)} events  head #${s.nextSeq - 1} ${s.headHash.slice(0, 16)}  ${s.ended ?? 'not ended'}`);
  if (v.ok) return [`verified ${v.sessionId}: ${counts}; every chain intact, tree consistent`, ...heads];
  return [
    `FAILED ${v.sessionId}: ${v.faults.length} fault${v.faults.length === 1 ? '' : 's'} in ${counts}`,
    ...v.faults.map((p) => `  ${problemSite(p)}  ${p.fault}: ${p.detail}`),
    ...heads,
  ];
}

/**
 * `recur audit verify <id>`: checks the session tree from Kafka alone (no daemon, no Temporal).
 * Exit 0 when every chain and the tree's shape are intact, 3 naming the first bad event otherwise.
 */
export async function audit(ctx: CommandContext): Promise<number> {
  const [sub, sessionId, ...extra] = ctx.args;
  if (sub !== 'verify' || !sessionId || extra.length > 0) throw new ExitError(2, USAGE);
  const config = loadConfig();
  const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-audit`);
  const verdict = verifyTree(sessionId, await readLogInOrder({ kafka, topic: config.kafka.topic, sessionId }));
  const first = verdict.faults[0];
  if (ctx.flags.json) ctx.out(JSON.stringify({ ...verdict, first: first ?? null }));
  else for (const line of formatVerdict(verdict)) ctx.out(line);
  if (first) throw new ExitError(3, `audit of ${sessionId} failed at ${problemSite(first)}: ${first.fault}: ${first.detail}`);
  return 0;
}
