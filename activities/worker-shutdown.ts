import type { Context } from '@temporalio/activity';

/** Whether the activity is cancelled because its worker is shutting down (a deploy), not because its workflow asked. */
export function byWorkerShutdown(ctx: Context): boolean {
  return ctx.cancellationDetails?.workerShutdown === true || (ctx.cancellationSignal.reason as Error | undefined)?.message === 'WORKER_SHUTDOWN';
}
