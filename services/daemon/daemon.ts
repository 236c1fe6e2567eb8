import type { AddressInfo } from 'node:net';
import { Client, Connection, WorkflowFailedError } from '@temporalio/client';
import { openBlobStore } from '../../activities/open-blob-store';
import type { RecurConfig } from '../../config';
import { RecurError } from '../../errors';
import { clientTracing } from '../../observability/temporal-tracing';
import { kafkaClient, temporalConnection } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { homeKeyring } from '../home/log-keys';
import { liveProcess, stopProcess } from '../home/process';
import { fileOffsetIndex, followSessionLog } from '../projector';
import { auditTopicTree } from '../projector/audit-topic';
import { highWatermarks, scanTopic } from '../projector/scan-topic';
import { TreeCache } from '../projector/tree-cache';
import { catalogFollower } from './catalog-follower';
import { newDaemonToken, removeDaemonToken, writeDaemonToken } from './auth-token';
import { createDaemonServer } from './http-server';
import { createViewer } from './ui-front';
import { readTreeLog } from './read-tree-log';
import { daemonPaths } from './paths';
import type { RestartPolicy } from './restart-delay';
import { createRoutes } from './routes';
import type { SessionService } from './session-service';
import { createTemporalSessions } from './temporal-sessions';
import { streamSessionEvents, type FollowLog, type SessionClosed } from './event-stream';
import { createDeltaHub } from './delta-hub';
import { createWorkerSupervisor, type WorkerCommand, type WorkerSupervisor } from './worker-supervisor';
import { REPLACES_ENV, workerIdentity } from '../worker/lost-attempts';

export interface DaemonOptions {
  config: RecurConfig;
  /** What the supervisor keeps running; the real worker in production, a dummy script in tests. */
  workerCommand: WorkerCommand;
  workerEnv?: NodeJS.ProcessEnv;
  workerGraceMs?: number;
  restartPolicy?: RestartPolicy;
  /** Listen here instead of config.ports.daemon (0: any free port). */
  port?: number;
  /** The viewer's bundle; dist/ui of the checkout without it. */
  uiDir?: string;
  log?: (line: string) => void;
}

export interface Daemon {
  url: string;
  token: string;
  worker: WorkerSupervisor;
  /** Stops serving, ends open streams, stops the worker; safe to call more than once. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Starts the daemon: the API on loopback, then the token file (only once the port is ours, so
 * a second daemon never overwrites a running one's token), then the supervised worker.
 */
export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const { config } = opts;
  const log = opts.log ?? (() => undefined);
  if (!LOOPBACK.has(config.host)) throw new RecurError(`the daemon listens on loopback only, not ${config.host}`, { hint: 'set RECUR_HOST=127.0.0.1' });
  const paths = daemonPaths(config);
  const connection = Connection.lazy(temporalConnection(config));
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: clientTracing() });
  const sessions: SessionService = createTemporalSessions({ client, taskQueue: config.temporal.taskQueue });
  const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-daemon`);
  const index = fileOffsetIndex(stackPaths(config).logIndex);
  const follow: FollowLog = (sessionId, signal) => followSessionLog({ kafka, topic: config.kafka.topic, sessionId, signal, index });
  const closed: SessionClosed = (sessionId, signal) => client.withAbortSignal(signal, () => client.workflow.getHandle(sessionId).result())
    .then(() => undefined, (e: unknown) => {
      // A failed, cancelled, terminated or timed-out run has closed too; anything else (unknown id, aborted) has not.
      if (!(e instanceof WorkflowFailedError)) throw e;
    });
  const topic = config.kafka.topic;
  const trees = new TreeCache({
    scan: (from, onRecord) => scanTopic({ kafka, topic, from, onRecord }),
    start: (root) => index.lookup(root),
    ends: () => highWatermarks(kafka, topic),
    maxBytes: config.ui.cacheMiB * 2 ** 20,
  });
  const catalog = catalogFollower(kafka, topic, trees);
  const deltas = createDeltaHub();
  const worker = createWorkerSupervisor({
    command: opts.workerCommand,
    env: opts.workerEnv ?? process.env,
    logFile: paths.workerLog,
    pidFile: paths.workerPid,
    successorEnv: (pid) => ({ [REPLACES_ENV]: workerIdentity(pid) }),
    graceMs: opts.workerGraceMs,
    policy: opts.restartPolicy,
    log,
    onMessage: (m) => deltas.publish(m),
  });
  const token = newDaemonToken();
  const { server, drain } = createDaemonServer({
    token,
    log,
    viewer: createViewer(config, opts.uiDir),
    handle: createRoutes({
      config, sessions, worker: () => worker.state(), modelEnv: process.env,
      readLog: (id) => readTreeLog(kafka, topic, id, index),
      // A tree opened starts the follower too (a link straight to a tree skips the list), once
      // its own read is done so the two do not share the CPU: the follower reads the others ahead.
      readTree: (id) => trees.read(id).finally(() => void catalog.reply().catch(() => undefined)),
      // Read at each request: `recur keys rotate` adds a key while the daemon runs.
      verifyTree: (id) => auditTopicTree({ kafka, topic, sessionId: id, keys: homeKeyring(stackPaths(config).keys) }),
      blobs: openBlobStore(config),
      catalog: () => catalog.reply(),
    }),
    stream: (ws, sessionId, cursor, o) => streamSessionEvents(ws, follow, sessionId, cursor, closed, o.deltas ? deltas : undefined),
  });

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? config.ports.daemon, config.host, resolve);
    });
  } catch (err) {
    await connection.close();
    throw new RecurError(`cannot listen on ${config.host}:${opts.port ?? config.ports.daemon}: ${(err as Error).message}`, {
      cause: err, hint: 'is another daemon running? `recur status`, or choose a port with RECUR_DAEMON_PORT',
    });
  }
  writeDaemonToken(paths.token, token);
  // A worker left behind by a daemon that died would double up with the one started now.
  const orphan = liveProcess(paths.workerPid);
  if (orphan) {
    log(`stopping worker pid ${orphan.pid} left by a previous daemon`);
    await stopProcess(orphan, opts.workerGraceMs);
  }
  worker.start();
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  log(`daemon listening on http://${host}:${port}`);

  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    removeDaemonToken(paths.token);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await Promise.all([closed, drain(), worker.stop(), catalog.close()]);
    await connection.close();
  };
  return { url: `http://${host}:${port}`, token, worker, close: () => (closing ??= close()) };
}
