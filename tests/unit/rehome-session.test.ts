import type { SessionPlaced } from '../../schemas/generated/events';
import { hostBeatSignal } from '../../workflows/hosts/host-messages';
import { hostRegistryId } from '../../workflows/hosts/host-queue';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/* Placement and re-homing on the workflow side (workflows/placement.ts), with a host that beats but never takes work. */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'rehome-session';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});

test('a session placed on a host no worker serves moves, after HOST_LOST_AFTER, to a live one, logging both placements; its cell, never sent, runs there once', async () => {
  // 'gone' looks idler than the world's own host, so it wins the first placement; nothing polls its queue.
  await world.client.workflow.signalWithStart('hostRegistryWorkflow', {
    workflowId: hostRegistryId(TQ), taskQueue: TQ, args: [[]], signal: hostBeatSignal, signalArgs: [{ hostId: 'gone', loadedKernels: 0 }],
  });
  await world.client.workflow.getHandle(hostRegistryId(TQ)).signal(hostBeatSignal, { hostId: 'local', loadedKernels: 5 });
  world.script = { root: [{ code: [] }, { answer: 'done' }] };
  const input = world.input('t');
  const h = await world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
  await expect(h.result()).resolves.toMatchObject({ status: 'completed', answer: 'done' });
  expect(world.types(input.sessionId)).toEqual(['SessionStarted', 'ModelCalled', 'CellRequested', 'SessionPlaced', 'SessionPlaced', 'CellExecuted', 'ModelCalled', 'SessionCompleted']);
  const placed = world.events(input.sessionId).filter((e): e is SessionPlaced => e.type === 'SessionPlaced');
  expect(placed.map((p) => [p.hostId, p.liveHosts])).toEqual([['gone', 2], ['local', 1]]);
  expect(world.cellInputs.filter((c) => c.sessionId === input.sessionId).map((c) => c.sentOnLostHost)).toEqual([false]);
});
