import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { SendMessageReply } from '../../daemon/api-types';
import type { CommandContext } from '../cli';
import { connectDaemon, sessionPath, type DaemonClient } from '../daemon-client';

export async function send(ctx: CommandContext): Promise<number> {
  const [sessionId, text, ...extra] = ctx.args;
  if (!sessionId || text === undefined || extra.length > 0) throw new ExitError(2, 'usage: recur send <session-id> "<text>"');
  const messageId = await sendMessage(connectDaemon(loadConfig()), sessionId, text);
  ctx.out(ctx.flags.json ? JSON.stringify({ sessionId, messageId }) : `sent ${messageId} to ${sessionId}`);
  return 0;
}

/** Delivers `text` from the user; a completed, retained root wakes to answer it. Returns the message id. */
export async function sendMessage(daemon: DaemonClient, sessionId: string, text: string): Promise<string> {
  return (await daemon.post<SendMessageReply>(sessionPath(sessionId, 'messages'), { text })).messageId;
}
