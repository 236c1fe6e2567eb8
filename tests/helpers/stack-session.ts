import { setTimeout as sleep } from 'node:timers/promises';
import { kafkaClient } from '../../config/connections';
import { followSessionLog } from '../../services/projector';
import type { SessionInput, SessionLimits, SessionResult } from '../../workflows/session-types';
import type { SessionHarness, SessionRun } from './session-harness';

export interface StackRunOptions {
  task?: string;
  limits?: Partial<SessionLimits>;
  /** Called with the tree's event count as each event reaches the log; return true to stop following. */
  onEvent?: (n: number, event: { type: string; sessionId: string; event: unknown }) => Promise<boolean | void>;
  /** Changes the root's input before it starts (a research session's spec, its workspace record). */
  prepare?: (input: SessionInput) => SessionInput;
}

/**
 * Runs a scripted session tree on the stack's own worker process (the one the daemon
 * supervises, which crash tests kill) and reads its log back. The result is awaited through
 * Temporal outages: the client asks again until the workflow answers.
 */
export async function runOnStackWorker(h: SessionHarness, agents: Record<string, string[]>, opts: StackRunOptions = {}): Promise<SessionRun> {
  const made = h.input(agents, opts.task ?? 'a task for the stack worker', opts.limits);
  const input = opts.prepare ? opts.prepare(made) : made;
  await h.client.workflow.start('agentSessionWorkflow', {
    taskQueue: h.config.temporal.taskQueue, workflowId: input.sessionId, args: [input],
  });
  const abort = new AbortController();
  const following = (async () => {
    let n = 0;
    const items = followSessionLog({ kafka: kafkaClient(h.config, 'reader', 'stack-test'), topic: h.config.kafka.topic, sessionId: input.sessionId, signal: abort.signal });
    for await (const item of items) {
      if (item.kind === 'event' && (await opts.onEvent?.(++n, item.event))) return;
    }
  })().catch(() => undefined);
  const result = await resultThroughOutages(h, input.sessionId);
  abort.abort();
  await following;
  return h.read(input.sessionId, result);
}

async function resultThroughOutages(h: SessionHarness, id: string): Promise<SessionResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await h.client.workflow.getHandle(id).result()) as SessionResult;
    } catch (e) {
      const err = e as Error & { cause?: Error };
      // A failed session still has a log worth comparing: what differs says what went wrong.
      if (err.name === 'WorkflowFailedError') return { status: 'failed', kind: 'internal', reason: err.cause?.message ?? err.message };
      if (attempt >= 60) throw e;
      await sleep(2_000);
    }
  }
}
