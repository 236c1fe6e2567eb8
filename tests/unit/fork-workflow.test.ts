import { WorkflowFailedError } from '@temporalio/client';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld } from '../helpers/fake-session-world';

jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'fork-workflow';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

async function run(input: SessionInput): Promise<{ status: 'completed' | 'failed'; message: string }> {
  try {
    await world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
    return { status: 'completed', message: '' };
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    return { status: 'failed', message: e.cause?.message ?? e.message };
  }
}

describe('a forked session workflow', () => {
  test('copies the history, logs ForkedFrom, hears the instruction first and goes on from the origin\'s turn with a kernel to restore', async () => {
    world.script = { root: [{ code: [] }, { code: [] }, { answer: 'origin done' }] };
    const origin = world.input('count');
    expect(await run(origin)).toEqual({ status: 'completed', message: '' });
    const originLog = [...world.logs.get(origin.sessionId)!];
    const at = originLog.filter((e) => e.type === 'CellExecuted')[1].seq;

    // Calls 0 and 1 were the origin's; the fork's first call is call 2.
    world.script = { root: [{ code: [] }, { code: [] }, { code: [] }, { answer: 'fork done' }] };
    const fork: SessionInput = { ...world.input('count'), fork: { originId: origin.sessionId, atSeq: at, instruction: { messageId: 'user#1', from: 'user', text: 'try again' } } };
    expect(await run(fork)).toEqual({ status: 'completed', message: '' });

    const types = world.types(fork.sessionId);
    expect(types.slice(0, at + 1)).toEqual(originLog.slice(0, at + 1).map((e) => e.type));
    expect(types.slice(at + 1)).toEqual(['ForkedFrom', 'MessageDelivered', 'ModelCalled', 'CellRequested', 'CellExecuted', 'ModelCalled', 'SessionCompleted']);
    const events = world.events(fork.sessionId);
    expect(events[at + 1]).toEqual({
      type: 'ForkedFrom', originSessionId: origin.sessionId, originSeq: at, originHash: originLog[at].hash, snapshotSeq: null, model: 'fake', instructionMessageId: 'user#1', children: [],
    });
    expect(events.filter((e) => e.type === 'ModelCalled').map((e) => e.type === 'ModelCalled' && e.turn)).toEqual([0, 1, 2, 3]);
    const cell = world.cellInputs.filter((c) => c.sessionId === fork.sessionId);
    expect(cell).toEqual([expect.objectContaining({ firstCell: false, restoreFrom: null, throughSeq: at + 4 })]);
    // The origin's log has not one event more.
    expect(world.logs.get(origin.sessionId)!.map((e) => e.hash)).toEqual(originLog.map((e) => e.hash));
  });

  test('a fork point the copy finds inside a step ends the fork with a logged failure naming the valid seqs, and copies nothing', async () => {
    world.script = { root: [{ code: [] }, { answer: 'origin done' }] };
    const origin = world.input('count');
    await run(origin);
    const request = world.logs.get(origin.sessionId)!.find((e) => e.type === 'CellRequested')!;
    const fork: SessionInput = { ...world.input('count'), fork: { originId: origin.sessionId, atSeq: request.seq } };
    const r = await run(fork);
    expect(r.status).toBe('failed');
    expect(r.message).toContain(`seq ${request.seq} of ${origin.sessionId} falls inside a step`);
    expect(world.types(fork.sessionId)).toEqual(['SessionFailed']);
  });
});
