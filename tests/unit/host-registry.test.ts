import { join } from 'node:path';
import { homedir } from 'node:os';
import { MockActivityEnvironment, TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { createPlacementActivities } from '../../activities/place-session';
import { type PlaceReply, getHostsQuery, hostBeatSignal, hostLeftSignal, placeSessionsUpdate } from '../../workflows/hosts/host-messages';
import { hostRegistryId } from '../../workflows/hosts/host-queue';

/** The registry workflow on a real Temporal dev server, asked as the placement activity asks it. */
describe('the host registry', () => {
  const taskQueue = 'registry-test';
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: join(homedir(), '.recur', 'tools', 'venv', 'bin', 'temporal') } },
    });
    worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: require.resolve('../../workflows'), shutdownForceTime: '30s' });
    running = worker.run();
  }, 120_000);

  afterAll(async () => {
    worker.shutdown();
    await running;
    await env.teardown();
  });

  const beat = (hostId: string, loadedKernels: number) => env.client.workflow.signalWithStart('hostRegistryWorkflow', {
    workflowId: hostRegistryId(taskQueue), taskQueue, args: [[]], signal: hostBeatSignal, signalArgs: [{ hostId, loadedKernels }],
  });
  const place = (asker: string, sessionId: string): Promise<PlaceReply> => new MockActivityEnvironment({ taskQueue })
    .run(createPlacementActivities({ client: env.client, hostId: asker }).placeSession, { sessionId, key: `${sessionId}/3` });

  test('a lone asker with no beat yet is placed on itself, as the one live host', async () => {
    expect(await place('local', 's0')).toEqual({ hostId: 'local', loadedKernels: 0, liveHosts: 1 });
  });

  test('new sessions go to the least-loaded live host, counting those placed since its beat; a retried ask gets the same answer', async () => {
    await beat('local', 2);
    await beat('b', 0);
    await beat('c', 1);
    const first = await place('local', 's1');
    expect(first).toEqual({ hostId: 'b', loadedKernels: 0, liveHosts: 3 });
    expect(await place('local', 's1')).toEqual(first);
    expect((await place('c', 's2')).hostId).toBe('b');
    expect((await place('c', 's3')).hostId).toBe('c');
    // s0, placed on local a moment before its beat, still counts on top of it: its kernel may not be up.
    const { hosts } = await env.client.workflow.getHandle(hostRegistryId(taskQueue)).query(getHostsQuery);
    expect(hosts.map((h) => [h.hostId, h.loadedKernels, h.placed.length]).sort()).toEqual([['b', 0, 2], ['c', 1, 1], ['local', 2, 1]]);
  });

  test('a burst of asks from one worker goes in a few updates, each answered, spread evenly over the live hosts', async () => {
    const burst = 'registry-burst';
    const w = await Worker.create({ connection: env.nativeConnection, taskQueue: burst, workflowsPath: require.resolve('../../workflows') });
    const run = w.run();
    try {
      await env.client.workflow.signalWithStart('hostRegistryWorkflow', {
        workflowId: hostRegistryId(burst), taskQueue: burst, args: [[]], signal: hostBeatSignal, signalArgs: [{ hostId: 'b', loadedKernels: 0 }],
      });
      const acts = createPlacementActivities({ client: env.client, hostId: 'local' });
      // One at a time per update, Temporal refuses asks beyond a few in flight on one workflow.
      const replies = await Promise.all(Array.from({ length: 120 }, (_, i) =>
        new MockActivityEnvironment({ taskQueue: burst }).run(acts.placeSession, { sessionId: `w${i}`, key: `w${i}/3` }) as Promise<PlaceReply>));
      const per = new Map<string, number>();
      for (const r of replies) per.set(r.hostId, (per.get(r.hostId) ?? 0) + 1);
      expect(Object.fromEntries(per)).toEqual({ b: 60, local: 60 });
      const { events } = await env.client.workflow.getHandle(hostRegistryId(burst)).fetchHistory();
      const updates = (events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;
      expect(updates).toBeGreaterThan(0);
      expect(updates).toBeLessThanOrEqual(3);
    } finally {
      w.shutdown();
      await run;
    }
  }, 60_000);

  test('a lone host that its sessions found lost, asking again once its worker is back, gets them back', async () => {
    const lone = 'registry-lone';
    const w = await Worker.create({ connection: env.nativeConnection, taskQueue: lone, workflowsPath: require.resolve('../../workflows') });
    const run = w.run();
    try {
      const reply = await new MockActivityEnvironment({ taskQueue: lone })
        .run(createPlacementActivities({ client: env.client, hostId: 'local' }).placeSession, { sessionId: 's9', key: 's9/7', exclude: 'local' });
      expect(reply).toEqual({ hostId: 'local', loadedKernels: 0, liveHosts: 1 });
    } finally {
      w.shutdown();
      await run;
    }
  }, 60_000);

  test('a host that left is placed on no more', async () => {
    // Every host beats afresh: the tests above may take longer than a beat lives (HOST_LIVE_MS).
    await beat('local', 2);
    await beat('c', 1);
    await beat('b', 0);
    await env.client.workflow.getHandle(hostRegistryId(taskQueue)).signal(hostLeftSignal, { hostId: 'b' });
    expect(await place('local', 's4')).toMatchObject({ hostId: 'c', liveHosts: 2 });
  });

  // Last: its failed ask waits out the server's wait for the update (20 s), which ages the beats the tests above share.
  test('a registry its worker cannot replay is ended at the next ask that fails, and the ask after it starts a new one', async () => {
    const q = 'registry-replaced';
    const id = hostRegistryId(q);
    const before = await Worker.create({ connection: env.nativeConnection, taskQueue: q, workflowsPath: require.resolve('../helpers/workflows/registry-before') });
    await before.runUntil(env.client.workflow.signalWithStart('hostRegistryWorkflow', {
      workflowId: id, taskQueue: q, args: [[]], signal: hostBeatSignal, signalArgs: [{ hostId: 'b', loadedKernels: 0 }],
    }).then(() => env.client.workflow.getHandle(id).executeUpdate(placeSessionsUpdate, { args: [[{ key: 'r0/3', asker: 'b' }]] })));
    const { runId: first } = await env.client.workflow.getHandle(id).describe();
    const today = await Worker.create({ connection: env.nativeConnection, taskQueue: q, workflowsPath: require.resolve('../../workflows') });
    await today.runUntil(async () => {
      const ask = () => new MockActivityEnvironment({ taskQueue: q })
        .run(createPlacementActivities({ client: env.client, hostId: 'local' }).placeSession, { sessionId: 'r1', key: 'r1/3' });
      // The replay fails as nondeterministic, and with it the update.
      await expect(ask()).rejects.toThrow(/workflow task/i);
      expect((await env.client.workflow.getHandle(id, first).describe()).status.name).toBe('TERMINATED');
      expect(await ask()).toEqual({ hostId: 'local', loadedKernels: 0, liveHosts: 1 });
      expect((await env.client.workflow.getHandle(id).describe()).runId).not.toBe(first);
    });
  }, 60_000);
});
