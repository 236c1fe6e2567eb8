import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { loadConfig } from '../../config';
import { temporalAddress } from '../../config/connections';

describe('Temporal dev server', () => {
  const config = loadConfig();

  it('runs a workflow with an activity on a worker started by the test', async () => {
    const taskQueue = `smoke-${process.pid}`;
    const nativeConnection = await NativeConnection.connect({ address: temporalAddress(config) });
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: config.temporal.namespace,
      taskQueue,
      workflowsPath: require.resolve('../helpers/workflows/smoke'),
      activities: { greet: async (name: string) => `hello, ${name}` },
    });
    const connection = await Connection.connect({ address: temporalAddress(config) });
    const client = new Client({ connection, namespace: config.temporal.namespace });
    try {
      const result = await worker.runUntil(
        client.workflow.execute('smokeWorkflow', { taskQueue, workflowId: `smoke-${process.pid}-${Date.now()}`, args: ['recur'] }),
      );
      expect(result).toBe('hello, recur');
    } finally {
      await connection.close();
      await nativeConnection.close();
    }
  });
});
