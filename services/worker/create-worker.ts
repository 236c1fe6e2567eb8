import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { RecurConfig } from '../../config';
import { withRecurErrors } from '../../activities/activity-errors';
import { openBlobStore } from '../../activities/open-blob-store';
import { appendFirst } from '../../activities/append-first';
import { scanAfter } from '../../activities/scan-after';
import { createModelActivities } from '../../activities/call-model';
import { readContextFiles } from '../../activities/context-files';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { ensureTopic } from '../../activities/event-topic';
import { createForkActivities, type ForkActivities } from '../../activities/fork/fork-activities';
import { ServerConnection } from '@jupyterlab/services';
import { createKernelClient } from '../../activities/kernel/index';
import { createJupyterSessions } from '../../activities/kernel/jupyter-sessions';
import { createKernelCap } from '../../activities/kernel/kernel-cap';
import { createKernelActivities } from '../../activities/run-cell';
import { openFencedLog } from '../../activities/fenced-log';
import { createStepLoop } from '../../activities/step-loop/run-steps';
import { LoopStops } from '../../activities/step-loop/loop-stops';
import { createSnapshotActivities } from '../../activities/snapshot/index';
import { createGateActivities } from '../../activities/run-gate';
import type { JobActivities } from '../../activities/jobs/run-job';
import { gateLauncher, jobLauncher } from '../../activities/jobs/job-launch';
import { createWorkspaceRecord } from '../../activities/workspace/workspace-record';
import { createTreeActivities } from '../../activities/tree-sessions';
import { createPlacementActivities } from '../../activities/place-session';
import { hostTaskQueue } from '../../workflows/hosts/host-queue';
import { KERNEL_ACTIVITIES } from '../../workflows/proxies';
import { createWorkspaceActivities } from '../../activities/workspace/scan-workspace';
import type { SessionActivities } from '../../activities/session-activities';
import type { HarnessActivities } from '../../activities/harness/harness-activities';
import { TranscriptCache } from '../../activities/transcript-cache';
import { workerObservability, type Telemetry } from '../../observability';
import { kafkaClient, temporalConnection } from '../../config/connections';
import { jupyterConnection, stackPaths } from '../../config/home-paths';
import { homeSigner } from '../home/log-keys';
import { repoRoot } from '../home/repo-root';
import { ownerOnlySecret } from '../home/secret-file';
import { startHostBridge } from '../host-bridge';
import { WORKFLOW_BUNDLER_OPTIONS } from './workflow-bundle';
import { createKernelHost, sandboxKey, sandboxRoot } from '../sandbox';
import { fileOffsetIndex, readSessionLog, treeStartMarker } from '../projector';
import { createAutoRefineActivities } from '../../activities/harness/auto-refine-activity';
import { createRoleActivities } from '../../activities/harness/seed-roles';
import { createRefineActivities } from '../../activities/harness/harness-activities';
import { pythonModuleNames } from '../../activities/harness/module-names';
import { createApprovalGate } from './approval-gate';
import { registerApprovalOps } from './approval-ops';
import { registerSessionOps } from './bridge-ops';
import { registerGitOps } from './git-ops';
import { bridgeValues } from './bridge-values';
import { createHarnessClient } from './harness-client';
import { registerHarnessOps } from './harness-ops';
import { harnessPromptSection, resolveSpecFrom } from './harness-reads';
import { registerLongRunOps } from './long-run-ops';
import { registerJobOps } from './job-ops';
import { registerResearchOps } from './research-ops';
import { judgeLauncher } from '../research/judge-launch';
import { shippedRoles } from '../research/roles';
import { hostJobActivities } from './job-executor';
import { workerEgress } from './egress';
import type { DeltaSink } from './delta-channel';
import { startHostBeats } from './host-beats';
import { failLostAttempts, workerIdentity, type LostAttempt } from './lost-attempts';

export interface RecurWorker {
  /** The shared queue's worker and its host's: run and shut down together. */
  worker: Pick<Worker, 'run' | 'shutdown' | 'getState'>;
  /** Ends the attempts a dead worker of this task queue had started, so they are retried now (lost-attempts.ts). */
  endLostAttempts(dead: string): Promise<LostAttempt[]>;
  /** Stops polling, closes kernels' client side (kernels keep running for the next worker) and connections. */
  close(): Promise<void>;
}

/**
 * Wires one worker process: explicit clients for Kafka, Temporal, Jupyter and the blob store,
 * the host bridge kernels call, and the session activities over them.
 */
export async function createRecurWorker(
  config: RecurConfig,
  opts: {
    taskQueue?: string;
    env?: NodeJS.ProcessEnv;
    telemetry?: Telemetry;
    /** Where model text goes as it streams (the daemon's IPC channel); none: not streamed. */
    onTextDelta?: DeltaSink;
    /** Workflow code bundled earlier (at build, or a release's) to run instead of bundling this checkout's workflows/ now. */
    workflowBundle?: { code: string } | { codePath: string };
    /** How Temporal's histories name this worker (by default workerIdentity(): its pid and host). */
    identity?: string;
  } = {},
): Promise<RecurWorker> {
  const obs = workerObservability(opts.telemetry);
  const kafka = kafkaClient(config, 'writer');
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopic(admin, config.kafka.topic, config.kafka.partitions);
  await admin.disconnect();
  const producer = createEventLogProducer(kafka);

  const index = fileOffsetIndex(stackPaths(config).logIndex);
  const readOwnLog = async (sessionId: string) => (await readSessionLog({ kafka, topic: config.kafka.topic, sessionId, descendants: false, index })).events;
  const transcripts = new TranscriptCache(readOwnLog, config.worker.transcriptCacheMiB * 2 ** 20);
  const blobs = openBlobStore(config);
  const connection = await Connection.connect(temporalConnection(config));
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: obs.clientInterceptors });
  const bridge = await startHostBridge({ secret: Buffer.from(ownerOnlySecret(stackPaths(config).bridgeSecret), 'hex') });
  const taskQueue = opts.taskQueue ?? config.temporal.taskQueue;
  const harness = createHarnessClient(client, { taskQueue, globalScope: config.harness.globalScope });
  const ops = obs.bridge(bridge);
  const values = bridgeValues(blobs);
  const approvals = createApprovalGate(client);
  const egress = workerEgress({ client, approvals, readOwnLog, defaultNet: config.sandbox.net });
  // Scans and Recur's own git writes in a workspace take one lock, so a scan never counts Recur's change as another's.
  const record = createWorkspaceRecord(stackPaths(config).workspaceLog);
  const host = createKernelHost(config, ops, egress, record);
  registerSessionOps(ops, client, resolveSpecFrom(harness), values, host.worktrees);
  registerGitOps(ops, client, { workspaceOf: (sessionId) => host.place(sessionId).workspace, absorb: (workspace, write) => record.gitWrite(workspace, write) });
  const moduleNames = pythonModuleNames(stackPaths(config).python, `${repoRoot()}/kernel`);
  registerApprovalOps(ops, approvals);
  registerHarnessOps(ops, {
    client, harness, skillsDir: (sessionId) => host.place(sessionId).skills, refineApply: config.harness.refineApply, approvals, moduleNames,
  });
  registerLongRunOps(ops, client, values);
  const jobLog = (sessionId: string, jobId: string) => join(stackPaths(config).jobLogs, sandboxKey(sessionId), `${jobId}.log`);
  registerJobOps(ops, client, { logFile: jobLog, cpus: config.worker.jobCpus, executor: config.worker.jobExecutor });
  registerResearchOps(ops, client, { blobs, workspaceOf: (sessionId) => host.place(sessionId).workspace, executor: config.worker.jobExecutor });
  const jupyterSessions = createJupyterSessions(ServerConnection.makeSettings(jupyterConnection(config)), 'python3');
  const cap = createKernelCap({
    sessions: jupyterSessions,
    client,
    max: config.agent.maxLoadedKernels,
  });
  const kernels = obs.kernels(createKernelClient({ ...jupyterConnection(config), host, pythonPath: `${repoRoot()}/kernel`, cap }));

  const localModels = { installedDir: stackPaths(config).localModels, ...config.local };
  const snapshots = createSnapshotActivities({ kernels, blobs, places: host });
  const signer = homeSigner(stackPaths(config).keys);
  const log = createEventLogActivities({
    kafka, topic: config.kafka.topic, producer, signer, onAppended: (r) => transcripts.record(r),
    beforeTreeStarts: treeStartMarker(kafka, config.kafka.topic, index),
  });
  const { callModel } = createModelActivities({
    transcripts, blobs, env: opts.env ?? process.env, scriptedDirs: config.agent.scriptedDirs, loginsDir: stackPaths(config).logins, harnessSection: harnessPromptSection(harness),
    local: localModels,
    contextFiles: (sessionId) => readContextFiles(host.place(sessionId).workspace, config.agent.contextFileMaxBytes, blobs),
    onTextDelta: opts.onTextDelta,
  });
  const { cell, ...kernelActs } = createKernelActivities({ kernels, blobs, transcripts, snapshots });
  const workspace = createWorkspaceActivities({
    sensitivePaths: config.worker.sensitivePaths,
    blobs, places: host, root: stackPaths(config).workspaceLog, maxFileBytes: config.worker.workspaceMaxFileKiB * 1024, record, heartbeat: () => {
      // A local scan (workflows/proxies.ts) has no heartbeat to send: its workflow task's timeout watches it.
      // Run after a cell (activities/scan-after.ts), the beat is the cell activity's.
      const ctx = Context.current();
      if (!ctx.info.isLocal) ctx.heartbeat();
    },
  });
  const tree = createTreeActivities({ client });
  // Where this host's jobs and gates start, and in whose sandbox.
  const launchPlaces = {
    sandbox: config.sandbox.mode, python: stackPaths(config).python, kernelDir: `${repoRoot()}/kernel`, sandboxRoot: sandboxRoot(config),
    keyOf: sandboxKey, workspaceOf: (sessionId: string) => host.place(sessionId).workspace,
  };
  const steps = createStepLoop({
    ...obs.steps({ callModel, cell }), harnessSection: harnessPromptSection(harness), snapshotKernel: snapshots.snapshotKernel, scanAfterCell: workspace.scanAfterCell, readLog: readOwnLog, signer, stops: new LoopStops(),
    openLog: (sessionId) => openFencedLog({ kafka, topic: config.kafka.topic, onAppended: (r) => transcripts.record(r) }, sessionId),
  });
  const activities: SessionActivities & HarnessActivities & ForkActivities & ReturnType<typeof createAutoRefineActivities> & ReturnType<typeof createRoleActivities> & JobActivities = withRecurErrors({
    ...log,
    ...createForkActivities({ readLog: readOwnLog, appendEvents: log.appendEvents }),
    ...createRefineActivities({
      readLog: readOwnLog,
      env: opts.env ?? process.env,
      scriptedDirs: config.agent.scriptedDirs,
      loginsDir: stackPaths(config).logins,
      local: localModels,
      blobs,
      moduleNames,
    }),
    ...createAutoRefineActivities({ harness, apply: config.harness.refineApply }),
    ...createRoleActivities({ harness, roles: shippedRoles }),
    ...kernelActs,
    ...steps,
    ...tree,
    // Their inputs may carry a batch of the session's events, written before their work (SessionLog.ride).
    callModel: appendFirst(log.appendEvents, callModel),
    runCell: appendFirst(log.appendEvents, scanAfter(workspace.scanAfterCell, kernelActs.runCell)),
    snapshotKernel: appendFirst(log.appendEvents, snapshots.snapshotKernel),
    chargeTreeBudget: appendFirst(log.appendEvents, tree.chargeTreeBudget),
    ...createGateActivities({
      launch: gateLauncher({ ...launchPlaces, prepare: (sessionId) => host.prepare(sessionId), env: opts.env ?? process.env }),
      heartbeat: () => Context.current().heartbeat(),
    }),
    ...hostJobActivities(config, client, {
      logFile: jobLog,
      launch: jobLauncher({
        ...launchPlaces, judge: judgeLauncher({ blobs, dir: stackPaths(config).judged, onTheClock: config.worker.jobExecutor === 'virtual' }),
      }),
      env: opts.env ?? process.env,
    }),
    ...createPlacementActivities({ client, hostId: config.hostId }),
    // `git worktree add` writes into the parent's repository: Recur's own change there, not another's.
    prepareWorktree: (input: Parameters<SessionActivities['prepareWorktree']>[0]) => record.gitWrite(host.place(input.parentId).workspace, () => host.worktrees.prepare(input)),
    scanWorkspace: workspace.scanWorkspace,
  });
  const nativeConnection = await NativeConnection.connect(temporalConnection(config));
  const identity = opts.identity ?? workerIdentity();
  const shared = await Worker.create({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    taskQueue,
    ...(opts.workflowBundle ? { workflowBundle: opts.workflowBundle } : { workflowsPath: require.resolve('../../workflows'), bundlerOptions: WORKFLOW_BUNDLER_OPTIONS }),
    identity,
    maxCachedWorkflows: config.worker.cachedWorkflows,
    activities,
    ...obs.workerOptions,
    // A bundle has its workflow interceptors bundled in (scripts/build-workflows.mjs); the worker would only warn of these.
    ...(opts.workflowBundle && obs.workerOptions.interceptors && { interceptors: { ...obs.workerOptions.interceptors, workflowModules: [] } }),
  });
  // Kernel-bound work of the sessions placed on this host (docs/hosts.md): no workflows, its own Jupyter server.
  const own = await Worker.create({
    connection: nativeConnection,
    namespace: config.temporal.namespace,
    taskQueue: hostTaskQueue(taskQueue, config.hostId),
    identity,
    // Jobs too: they run in their session's sandbox, beside its workspace.
    activities: { ...Object.fromEntries(KERNEL_ACTIVITIES.map((name) => [name, activities[name]])), runJob: activities.runJob, cancelJob: activities.cancelJob, runGate: activities.runGate },
    ...(obs.workerOptions.interceptors?.activity && { interceptors: { activity: obs.workerOptions.interceptors.activity } }),
  });
  const beats = startHostBeats({
    client, taskQueue, hostId: config.hostId, loadedKernels: async () => (await jupyterSessions.listLoaded()).length,
    log: (line) => console.log(line),
  });
  const worker: RecurWorker['worker'] = {
    run: async () => {
      await Promise.all([shared.run(), own.run()]);
    },
    shutdown: () => {
      for (const w of [shared, own]) if (w.getState() === 'RUNNING') w.shutdown();
    },
    getState: () => shared.getState(),
  };
  return {
    worker,
    endLostAttempts: (dead) => failLostAttempts(client, taskQueue, dead),
    async close() {
      worker.shutdown();
      await beats.stop();
      kernels.dispose();
      await bridge.close();
      await egress.closeAll();
      await producer.disconnect();
      await connection.close();
      await nativeConnection.close();
    },
  };
}
