import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { RecurConfig } from '../config';
import { verifyChain, type StoredEvent } from '../schemas';
import { kafkaClient, temporalConnection } from '../config/connections';
import { readSessionLog } from '../services/projector';
import { createRecurWorker } from '../services/worker/create-worker';
import type { SessionInput, SessionLimits } from '../workflows/session-types';

/** A real Recur worker in this process, on a task queue of its own, and a client to start sessions on it. */
export interface BenchWorker {
  client: Client;
  taskQueue: string;
  close(): Promise<void>;
}

export async function startBenchWorker(config: RecurConfig, env?: NodeJS.ProcessEnv): Promise<BenchWorker> {
  const taskQueue = `bench-${randomBytes(4).toString('hex')}`;
  const recur = await createRecurWorker(config, { taskQueue, env });
  const running = recur.worker.run();
  const connection = await Connection.connect(temporalConnection(config));
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return {
    client,
    taskQueue,
    async close() {
      recur.worker.shutdown();
      await running;
      await recur.close();
      await connection.close();
    },
  };
}

export const newSessionId = () => `bench-${randomBytes(6).toString('hex')}`;

export function sessionInput(config: RecurConfig, model: string, limits: Partial<SessionLimits> = {}): SessionInput {
  const id = newSessionId();
  const a = config.agent;
  return {
    sessionId: id, rootId: id, parentId: null, name: 'root', task: 'benchmark session', model, depth: 0,
    limits: {
      maxTurns: a.maxTurns, maxTokens: null, maxSeconds: null, cellTimeoutSeconds: 60, maxDepth: a.maxDepth,
      turnsPerRun: a.turnsPerRun, snapshotEveryCells: a.snapshotEveryCells, idleUnloadSeconds: a.idleUnloadSeconds,
      maxChildren: a.maxChildren, maxTreeSessions: a.maxTreeSessions, messagesPerMinute: a.messagesPerMinute, messageBurst: a.messageBurst, ...limits,
    },
  };
}

/** A `scripted:` model spec whose root agent answers `replies` in order; the file lives in the bench home's scripts directory, wiped each run. */
export function scriptedModel(config: RecurConfig, replies: string[]): string {
  return scriptedAgents(config, { root: replies });
}

/** A `scripted:` model spec with replies for the root and its sub-agents, by agent name. */
export function scriptedAgents(config: RecurConfig, agents: Record<string, string[]>): string {
  const dir = config.agent.scriptedDirs[0];
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${randomBytes(6).toString('hex')}.json`);
  writeFileSync(file, JSON.stringify({ agents }));
  return `scripted:${file}`;
}

/** A reply that runs `code` as one fenced Python block. */
export const py = (code: string) => '```python\n' + code.trim() + '\n```';

/** One session's events read back from Kafka, chain-verified; throws if the log is not intact. */
export async function sessionEvents(config: RecurConfig, sessionId: string): Promise<readonly StoredEvent[]> {
  const log = await readSessionLog({ kafka: kafkaClient(config, 'reader', 'bench-reader'), topic: config.kafka.topic, sessionId, descendants: false });
  const verdict = verifyChain(log.events);
  if (!verdict.ok) throw new Error(`log of ${sessionId} is broken at ${verdict.eventId}: ${verdict.fault} (${verdict.detail})`);
  return log.events;
}
