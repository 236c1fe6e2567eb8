import type { SessionUnloaded } from '../../schemas/generated/events';
import { deliverMessageSignal, getStatusQuery, unloadIdleSignal } from '../../workflows/messages';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/* The host's ask to unload early (a full host, activities/kernel/kernel-cap.ts), on the workflow side. */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'unload-idle-signal';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !ok(); i++) await new Promise((r) => setTimeout(r, 100));
  if (!ok()) throw new Error(`gave up waiting for ${what}`);
}

test('unloadIdle makes an idle retained child unload at once, the timer\'s way, logging fewer seconds than its idle limit; a root ignores it', async () => {
  world.script = {
    // The root (and so the retained child) is held until the test, done asking, sends 'end': on a
    // slow machine a fixed wait ran out first and ended the child before it was asked.
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }] }, { code: [{ op: 'takeUntil', text: 'end' }] }, { answer: 'done' }],
    a: [{ answer: 'a' }],
  };
  const input = world.input('t', { idleUnloadSeconds: 1800 });
  const root = input.sessionId;
  const a = `${root}/a`;
  const h = await world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: root, args: [input] });
  await until('a to answer', () => world.types(a).includes('SessionCompleted'));
  // As the host does (activities/kernel/kernel-cap.ts): only a session that reports itself idle is asked.
  for (let i = 0; i < 300 && (await world.client.workflow.getHandle(a).query(getStatusQuery)).phase !== 'idle'; i++) await new Promise((r) => setTimeout(r, 100));
  await h.signal(unloadIdleSignal);
  await world.client.workflow.getHandle(a).signal(unloadIdleSignal);
  await until('a to unload', () => world.types(a).includes('SessionUnloaded'));
  const [gone] = world.events(a).filter((e): e is SessionUnloaded => e.type === 'SessionUnloaded');
  expect(gone.idleSeconds).toBeLessThan(1800);
  expect(world.shutdowns).toContain(a);
  await h.signal(deliverMessageSignal, { messageId: `${root}#user-1`, from: 'user', text: 'end' });
  await expect(h.result()).resolves.toMatchObject({ status: 'completed', answer: 'done' });
  expect(world.types(root)).not.toContain('SessionUnloaded');
  expect(world.shutdowns.filter((id) => id === a)).toHaveLength(1);
});
