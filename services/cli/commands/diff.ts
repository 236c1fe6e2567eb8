import { openBlobStore } from '../../../activities/open-blob-store';
import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { kafkaClient } from '../../../config/connections';
import { diffStat, endScanOf, formatDiffStat } from '../../projector';
import { readLogInOrder } from '../../projector/read-log-in-order';
import type { CommandContext } from '../command-context';

const USAGE = 'usage: recur diff <session-id> [--stat] [--json]';

/**
 * `recur diff <id>`: the session's net change to its workspace, as its end scan logged it (from
 * its start scan to its end, children sharing the workspace included). The log and the blob
 * store are all it reads.
 */
export async function diff(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, USAGE);
  const config = loadConfig();
  const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-diff`);
  const log = await readLogInOrder({ kafka, topic: config.kafka.topic, sessionId });
  const events = [...log.sessions.values()].flat();
  if (events.length === 0) throw new ExitError(1, `no events logged for ${sessionId} on ${config.kafka.topic}`);
  const end = endScanOf(events, sessionId);
  const ended = events.some((e) => e.sessionId === sessionId && (e.type === 'SessionCompleted' || e.type === 'SessionFailed'));
  if (!end && !ended) throw new ExitError(1, `${sessionId} has not ended: its net change is logged by its end scan; its changes so far are in recur replay ${sessionId}`);
  // An ended session of a plain directory whose end scan logged nothing changed nothing there.
  const patch = end?.netDiff ? (await openBlobStore(config).get(end.netDiff.sha256)).toString('utf8') : '';
  const stats = diffStat(patch);
  if (ctx.flags.json) ctx.out(JSON.stringify({ sessionId, workspace: end?.workspace ?? null, manifest: end?.manifest.sha256 ?? null, files: stats, ...(!ctx.flags.stat && { diff: patch }) }));
  else if (ctx.flags.stat) for (const line of formatDiffStat(stats)) ctx.out(line);
  else if (patch) ctx.out(patch.replace(/\n$/, ''));
  if (!patch && !ctx.flags.json) ctx.err(`no changes logged for ${sessionId}'s workspace`);
  return 0;
}
