import { answersCurrentTask, decideIdleUnload, outcomeMessageId, retainsAfter } from '../../workflows/decide-idle-unload';
import type { RetainState } from '../../workflows/session-types';

const idle = (over: Partial<RetainState> = {}): RetainState => ({ round: 0, idle: true, idleSince: 10_000, unloadedSeq: null, ...over });

describe('decideIdleUnload', () => {
  test('waits out the rest of the idle limit, measured from when the session went idle', () => {
    expect(decideIdleUnload(idle(), 12_500, 3)).toEqual({ kind: 'wait', ms: 500 });
  });

  test('unloads once the idle limit has passed with no message', () => {
    expect(decideIdleUnload(idle(), 13_000, 3)).toEqual({ kind: 'unload', idleSeconds: 3 });
    expect(decideIdleUnload(idle(), 99_000, 3)).toEqual({ kind: 'unload', idleSeconds: 3 });
  });

  test('a host asking for the kernel unloads it early, logging the whole seconds idled so far (below the limit)', () => {
    expect(decideIdleUnload(idle({ unloadAsked: true }), 12_999, 3)).toEqual({ kind: 'unload', idleSeconds: 2 });
    expect(decideIdleUnload(idle({ unloadAsked: true }), 10_000, 1800)).toEqual({ kind: 'unload', idleSeconds: 0 });
    // Past the limit it is the timer's unload, whoever asked.
    expect(decideIdleUnload(idle({ unloadAsked: true }), 13_000, 3)).toEqual({ kind: 'unload', idleSeconds: 3 });
  });

  test('an ask for an already unloaded session changes nothing', () => {
    expect(decideIdleUnload(idle({ unloadAsked: true, unloadedSeq: 7 }), 11_000, 3)).toEqual({ kind: 'wait', ms: null });
  });

  test('the idle clock restarts from idleSince, as carried across continue-as-new', () => {
    expect(decideIdleUnload(idle({ idleSince: 50_000 }), 51_000, 3)).toEqual({ kind: 'wait', ms: 2000 });
  });

  test('an unloaded session waits for a message with no time limit', () => {
    expect(decideIdleUnload(idle({ unloadedSeq: 7 }), 99_000, 3)).toEqual({ kind: 'wait', ms: null });
  });
});

describe('retainsAfter', () => {
  const done = { status: 'completed' as const, answer: '42' };
  const failed = { status: 'failed' as const, kind: 'max_turns' as const, reason: 'turn limit' };

  test('a sub-agent that answered its task is retained; a root only when started with retain', () => {
    expect(retainsAfter({ parentId: 'r1' }, done, null)).toBe(true);
    expect(retainsAfter({ parentId: null }, done, null)).toBe(false);
    expect(retainsAfter({ parentId: null, retain: false }, done, null)).toBe(false);
    expect(retainsAfter({ parentId: null, retain: true }, done, null)).toBe(true);
  });

  test('a retained root whose first answer failed ends; once retained, a failed later round keeps it', () => {
    expect(retainsAfter({ parentId: null, retain: true }, failed, null)).toBe(false);
    expect(retainsAfter({ parentId: null, retain: true }, failed, idle({ round: 1, idle: false }))).toBe(true);
  });

  test('a sub-agent whose first task failed ends; once retained, a failed later task keeps it', () => {
    expect(retainsAfter({ parentId: 'r1' }, failed, null)).toBe(false);
    expect(retainsAfter({ parentId: 'r1' }, failed, idle({ round: 2, idle: false }))).toBe(true);
  });
});

test('each piece of a retained child\'s work has its own outcome id, the first keeps the plain one', () => {
  expect(outcomeMessageId('r1/kid', 0)).toBe('r1/kid#outcome');
  expect(outcomeMessageId('r1/kid', 2)).toBe('r1/kid#outcome-2');
});

describe('answersCurrentTask', () => {
  it('takes any outcome of a child on its first task, none of a child not running', () => {
    expect(answersCurrentTask({ status: 'running' }, { taskMessageId: null })).toBe(true);
    expect(answersCurrentTask({ status: 'completed' }, { taskMessageId: null })).toBe(false);
  });

  it('for a retained child given a new task, takes only the outcome that answers that task', () => {
    const child = { status: 'running' as const, taskMessageId: 'root#m3' };
    expect(answersCurrentTask(child, { taskMessageId: 'root#m3' })).toBe(true);
    // Work a plain message woke it for, ending just after the new task was given: not the new task's answer.
    expect(answersCurrentTask(child, { taskMessageId: null })).toBe(false);
    expect(answersCurrentTask(child, { taskMessageId: 'root#m1' })).toBe(false);
  });
});
