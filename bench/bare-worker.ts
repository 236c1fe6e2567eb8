import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { RecurConfig } from '../config';
import { temporalConnection } from '../config/connections';
import { bareActivities } from './bare-activities';

/** A plain Temporal worker for bench/bare-workflows.ts on a task queue of its own, polling, and a client. */
export interface BareWorker {
  client: Client;
  taskQueue: string;
  close(): Promise<void>;
}

export async function startBareWorker(config: RecurConfig): Promise<BareWorker> {
  const taskQueue = `bench-bare-${randomBytes(4).toString('hex')}`;
  const native = await NativeConnection.connect(temporalConnection(config));
  const worker = await Worker.create({
    connection: native, namespace: config.temporal.namespace, taskQueue,
    workflowsPath: require.resolve('./bare-workflows'), activities: bareActivities,
  });
  const running = worker.run();
  const connection = await Connection.connect(temporalConnection(config));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return {
    client, taskQueue,
    async close() {
      worker.shutdown();
      await running;
      await native.close();
      await connection.close();
    },
  };
}
