import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { SendMessageReply } from '../../daemon/api-types';
import type { CommandContext } from '../cli';
import { connectDaemon, sessionPath } from '../daemon-client';

export async function send(ctx: CommandContext): Promise<number> {
  const [sessionId, text, ...extra] = ctx.args;
  if (!sessionId || text === undefined || extra.length > 0) throw new ExitError(2, 'usage: recur send <session-id> "<text>"');
  const { messageId } = await connectDaemon(loadConfig()).post<SendMessageReply>(sessionPath(sessionId, 'messages'), { text });
  ctx.out(ctx.flags.json ? JSON.stringify({ sessionId, messageId }) : `sent ${messageId} to ${sessionId}`);
  return 0;
}
