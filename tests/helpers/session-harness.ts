import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApplicationFailure, CancelledFailure, Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { loadConfig, type RecurConfig } from '../../config';
import { checkSeal, verifyChain, type StoredEvent } from '../../schemas';
import { kafkaClient, temporalAddress } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { homeKeyring } from '../../services/home/log-keys';
import { readSessionLog } from '../../services/projector';
import { createRecurWorker, type RecurWorker } from '../../services/worker/create-worker';
import type { SessionInput, SessionLimits, SessionResult } from '../../workflows/session-types';
import { sandboxRecord } from '../../services/sandbox';

export interface SessionRun {
  id: string;
  result: SessionResult;
  /** Every session of the tree, each in seq order, read back from Kafka. */
  sessions: ReadonlyMap<string, readonly StoredEvent[]>;
  /** Event types of one session, in order. */
  types(sessionId?: string): string[];
  /** The events of a given type in one session. */
  of<T extends StoredEvent['event']['type']>(type: T, sessionId?: string): Array<Extract<StoredEvent['event'], { type: T }>>;
}

/** Which workflow code a harness worker runs (today's when no bundle) and the name it has in histories. */
export interface WorkerChoice {
  workflowBundle?: { code: string };
  identity?: string;
}

/**
 * A real worker (real Kafka, Temporal, Jupyter kernels) on a task queue of its own, and a way to
 * run a scripted session on it and read back its whole log, chain- and seal-verified.
 */
export class SessionHarness {
  readonly config: RecurConfig;
  readonly taskQueue = `test-${randomBytes(4).toString('hex')}`;
  private recur!: RecurWorker;
  private running!: Promise<void>;
  private workerStopped = false;
  private connection!: Connection;
  client!: Client;
  private readonly dir: string;

  /** `env`: settings of this harness's worker on top of the test stack's (e.g. RECUR_MAX_LOADED_KERNELS). */
  constructor(env: Record<string, string> = {}) {
    this.config = loadConfig({ ...process.env, ...env });
    this.dir = scriptsDir(this.config);
  }

  /** `workflowBundle`: workflow code bundled earlier (a release's) for the worker to run instead of today's. */
  async start(opts: WorkerChoice = {}): Promise<void> {
    await this.startWorker(opts);
    await this.connect();
  }

  /** Starts this harness's worker (again, after stopWorker). */
  async startWorker(opts: WorkerChoice = {}): Promise<void> {
    this.recur = await createRecurWorker(this.config, { taskQueue: this.taskQueue, ...opts });
    this.running = this.recur.worker.run();
    this.workerStopped = false;
  }

  /** Shuts the worker down as a deploy does (its runs wait for the next worker); the client stays connected. */
  async stopWorker(): Promise<void> {
    this.workerStopped = true;
    this.recur.worker.shutdown();
    await this.running;
    await this.recur.close();
  }

  /** A Temporal client only: for tests that drive the stack's own worker process (the daemon's). */
  async connect(): Promise<void> {
    this.connection = await Connection.connect({ address: temporalAddress(this.config) });
    this.client = new Client({ connection: this.connection, namespace: this.config.temporal.namespace });
  }

  async stop(): Promise<void> {
    if (this.recur && !this.workerStopped) await this.stopWorker();
    await this.connection.close();
  }

  input(agents: Record<string, string[]>, task: string, limits: Partial<SessionLimits> = {}): SessionInput {
    const id = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    const script = join(this.dir, `${id}.json`);
    writeFileSync(script, JSON.stringify({ agents }));
    const a = this.config.agent;
    const { policyFile: _file, ...approvals } = this.config.approvals;
    return {
      sessionId: id, rootId: id, parentId: null, name: 'root', task, model: `scripted:${script}`, depth: 0, approvals,
      limits: { maxTurns: a.maxTurns, maxTokens: null, maxSeconds: null, cellTimeoutSeconds: 60, maxDepth: a.maxDepth, turnsPerRun: a.turnsPerRun, snapshotEveryCells: a.snapshotEveryCells, idleUnloadSeconds: a.idleUnloadSeconds,
        maxChildren: a.maxChildren, maxTreeSessions: a.maxTreeSessions, messagesPerMinute: a.messagesPerMinute, messageBurst: a.messageBurst, sandbox: sandboxRecord(this.config.sandbox), ...limits },
    };
  }

  async run(agents: Record<string, string[]>, task = 'test task', limits: Partial<SessionLimits> = {}): Promise<SessionRun> {
    return this.runInput(this.input(agents, task, limits));
  }

  /** Runs a session from a full input (a goal, autonomous mode) to its end. */
  async runInput(input: SessionInput): Promise<SessionRun> {
    const result = await this.client.workflow.execute('agentSessionWorkflow', {
      taskQueue: this.taskQueue, workflowId: input.sessionId, args: [input],
    }).then((r) => r as SessionResult, failedResult);
    return this.read(input.sessionId, result);
  }

  /** The result of a session started earlier, however it ended. */
  async result(id: string): Promise<SessionResult> {
    return this.client.workflow.getHandle(id).result().then((r) => r as SessionResult, failedResult);
  }

  /** Reads the tree back once every session in it has logged its end. */
  async read(id: string, result: SessionResult): Promise<SessionRun> {
    const kafka = kafkaClient(this.config, 'reader', 'test-reader');
    let log = await readSessionLog({ kafka, topic: this.config.kafka.topic, sessionId: id });
    for (let i = 0; i < 50 && !allEnded(log.sessions); i++) {
      await new Promise((r) => setTimeout(r, 200));
      log = await readSessionLog({ kafka, topic: this.config.kafka.topic, sessionId: id });
    }
    expect(log.undecodable).toEqual([]);
    expect(log.conflicts).toEqual([]);
    const verdict = verifyChain(log.events);
    expect(verdict).toMatchObject({ ok: true });
    // Every writer signs: an event without a valid seal by the home's keys fails every session test.
    const keys = homeKeyring(stackPaths(this.config).keys);
    expect(log.events.filter((e) => checkSeal(e, keys) !== null).map((e) => `${e.eventId} ${checkSeal(e, keys)}`)).toEqual([]);
    const sessions = log.sessions;
    const events = (sid: string) => sessions.get(sid) ?? [];
    return {
      id, result, sessions,
      types: (sid = id) => events(sid).map((e) => e.type),
      of: (type, sid = id) => events(sid).filter((e) => e.type === type).map((e) => e.event) as never,
    };
  }
}

/** A failed session is a failed workflow whose cause names the failure kind. */
function failedResult(e: unknown): SessionResult {
  if (!(e instanceof WorkflowFailedError)) throw e;
  if (e.cause instanceof CancelledFailure) return { status: 'failed', kind: 'cancelled', reason: e.cause.message };
  if (e.cause instanceof ApplicationFailure) return { status: 'failed', kind: e.cause.type as never, reason: e.cause.message };
  throw e;
}

function allEnded(sessions: ReadonlyMap<string, readonly StoredEvent[]>): boolean {
  return [...sessions.values()].every((events) =>
    events.some((e) => e.type === 'SessionCompleted' || e.type === 'SessionFailed'));
}

/** A scripted reply that runs `code` as one fenced Python block. */
/** A fresh directory for scripted-model files, inside the first directory the worker may read them from. */
export function scriptsDir(config: RecurConfig = loadConfig()): string {
  const [allowed] = config.agent.scriptedDirs;
  mkdirSync(allowed, { recursive: true });
  return mkdtempSync(join(allowed, 'test-'));
}

export const py = (code: string) => '```python\n' + code.trim() + '\n```';
