import { LoopStops } from '../../activities/step-loop/loop-stops';
import { stepsDone } from '../../activities/step-loop/steps-done';
import type { RecurEventInput } from '../../schemas';

const called = (turn: number, tokens = 3, costUsd = 0.5): RecurEventInput => ({
  type: 'ModelCalled', turn, model: 'm', provider: 'p', tokensIn: tokens, tokensOut: 1, costUsd, latencyMs: 0, response: '', toolCalls: [], stopReason: 'tool_use',
});
const requested = (cellId: string): RecurEventInput => ({ type: 'CellRequested', cellId, code: 'x = 1', codeBlob: null, toolCallId: null });
const executed = (requestId: string): RecurEventInput => ({ type: 'CellExecuted', requestId, code: 'x = 1', status: 'ok', outputs: '', durationMs: 1 });
const snapshotted = (coversSeq: number): RecurEventInput => ({
  type: 'KernelSnapshotted', manifest: { sha256: 'a'.repeat(64), size: 1 }, coversSeq, variables: 1, bytes: 1, unsaved: [], oversize: [], durationMs: 1,
});

describe('what logged steps change (stepsDone)', () => {
  test('counts each call with its tokens and cost, each cell ended, and the cells since the last snapshot', () => {
    const done = stepsDone([executed('s/2'), called(1, 10, 0.25), requested('s/5'), executed('s/5'), snapshotted(6), called(2), requested('s/9'), executed('s/9')], 3, 2);
    expect(done.calls).toEqual([{ tokens: 11, costUsd: 0.25 }, { tokens: 4, costUsd: 0.5 }]);
    expect(done.cellsEnded).toBe(3);
    expect(done.lastSnapshot).toEqual({ manifest: { sha256: 'a'.repeat(64), size: 1 }, coversSeq: 6 });
    expect(done.cellsSinceSnapshot).toBe(1);
    expect(done.openCell).toBeNull();
  });

  test('a request with no end after it is the cell left open, with its seq', () => {
    const done = stepsDone([called(0), requested('s/2')], 1, 0);
    expect(done.openCell).toEqual({ requestId: 's/2', reqSeq: 2, code: 'x = 1', codeBlob: null });
    expect(done.cellsSinceSnapshot).toBe(0);
  });
});

describe('stops of the step loops a worker runs (LoopStops)', () => {
  test('a stop reaches the running loop it names, and no other', async () => {
    const stops = new LoopStops();
    const a = stops.register('a');
    const b = stops.register('b');
    stops.stop('a');
    await a.told;
    expect([a.stopped, b.stopped]).toEqual([true, false]);
  });

  test('a stop that comes before its loop starts (an attempt on its way) stops it at once', async () => {
    const stops = new LoopStops();
    stops.stop('later');
    const later = stops.register('later');
    expect(later.stopped).toBe(true);
    await later.told;
    // Kept once: a released loop's id starts afresh.
    stops.release('later');
    expect(stops.register('later').stopped).toBe(false);
  });
});
