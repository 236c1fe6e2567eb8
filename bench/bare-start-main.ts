/*
 * The session-start baseline's client: a program of its own that starts one bare workflow and
 * exits, as `recur run` is one that starts a session. Only the Temporal client is loaded, as a
 * bare Temporal user's script would.
 *
 *   node dist/bench/bare-start-main.js ADDRESS NAMESPACE TASK_QUEUE WORKFLOW_ID
 */
import { Client, Connection } from '@temporalio/client';

async function main(): Promise<void> {
  const [address, namespace, taskQueue, workflowId] = process.argv.slice(2);
  const connection = await Connection.connect({ address });
  try {
    await new Client({ connection, namespace }).workflow.start('bareStartWorkflow', { taskQueue, workflowId, args: [] });
  } finally {
    await connection.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
