import { userInfo } from 'node:os';
import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { ApprovalsReply, DecideApprovalReply } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { connectDaemon } from '../daemon-client';

const approvalPath = (id: string) => `/v1/approvals/${encodeURIComponent(id)}`;

/** Lists the approvals every running session is waiting on, oldest first. */
export async function approvals(ctx: CommandContext): Promise<number> {
  if (ctx.args.length > 0) throw new ExitError(2, 'usage: recur approvals [--json]');
  const reply = await connectDaemon(loadConfig()).get<ApprovalsReply>('/v1/approvals');
  if (ctx.flags.json) {
    ctx.out(JSON.stringify(reply));
    return 0;
  }
  if (reply.approvals.length === 0) ctx.out('no approvals waiting');
  for (const a of reply.approvals) ctx.out(`${a.id}  ${a.kind}  ${new Date(a.requestedAt).toISOString()}  ${a.detail}`);
  return 0;
}

const decide = (decision: 'approve' | 'deny') => async (ctx: CommandContext): Promise<number> => {
  const [id, ...extra] = ctx.args;
  if (!id || extra.length > 0) throw new ExitError(2, `usage: recur ${decision} <approval-id> [--reason "<text>"] [--by <name>]`);
  const by = typeof ctx.flags.by === 'string' ? ctx.flags.by : userInfo().username;
  const reason = typeof ctx.flags.reason === 'string' ? ctx.flags.reason : '';
  const { approval } = await connectDaemon(loadConfig()).post<DecideApprovalReply>(approvalPath(id), { decision, by, reason });
  ctx.out(ctx.flags.json ? JSON.stringify({ approval }) : `${approval.id} ${approval.status} by ${approval.by}: ${approval.kind} ${approval.detail}`);
  return 0;
};

/** Answers an approval yes: the waiting cell (or model call) goes ahead; logged as ApprovalDecided. */
export const approve = decide('approve');
/** Answers an approval no: the waiting cell gets ApprovalRefusedError; logged as ApprovalDecided. */
export const deny = decide('deny');
