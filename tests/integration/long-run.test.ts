import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildPrompt } from '../../activities/prompt/build-prompt';
import { getStatusQuery } from '../../workflows/messages';
import { goalUpdate, scheduleUpdate } from '../../workflows/long-run-messages';
import type { GoalSpec } from '../../workflows/long-run-types';
import { SessionHarness, py } from '../helpers/session-harness';
import { sandboxKey } from '../../services/sandbox';

const goal = (objective: string, more: Partial<GoalSpec> = {}): GoalSpec =>
  ({ objective, openEnded: false, tokenBudget: null, secondsBudget: null, costBudgetUsd: null, ...more });

describe('goals, keep-going, schedules, autonomous limits and compaction (real stack; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('keeps a session with an open goal going past answers until the agent completes the goal', async () => {
    const run = await h.runInput({
      ...h.input({
        root: [
          'I think I am done.',
          py('x = 6 * 7\nprint(x)'),
          'x is 42.',
          py('print(goal.complete("x == 42, printed and checked")["status"])'),
          'The answer is 42.',
        ],
      }, 'compute 6*7', { turnsPerRun: 2 }),
      // Two continue-as-new boundaries: the goal and its counters travel in the carry.
      goal: goal('compute 6*7 and check it'),
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'The answer is 42.' });
    expect(run.types()).toEqual([
      'SessionStarted', 'GoalChanged', 'ModelCalled', 'ContinuationInjected',
      'ModelCalled', 'CellRequested', 'CellExecuted', 'ModelCalled', 'ContinuationInjected',
      'ModelCalled', 'CellRequested', 'GoalChanged', 'CellExecuted', 'ModelCalled', 'SessionCompleted',
    ]);
    expect(run.of('GoalChanged').map((g) => [g.change, g.status, g.reason])).toEqual([
      ['set', 'active', expect.stringMatching(/^turn cap: this goal run stops after \d+ model turns/)], ['completed', 'complete', 'x == 42, printed and checked'],
    ]);
    expect(run.of('ContinuationInjected').map((c) => [c.reason, c.count])).toEqual([['goal', 1], ['goal', 2]]);
    expect(run.of('ContinuationInjected')[0].text).toContain('compute 6*7 and check it');
    expect(run.of('CellExecuted')[1].outputs).toBe('complete');
    // Tokens of goal-active turns were counted against the goal.
    expect(run.of('GoalChanged')[1].tokensUsed).toBeGreaterThan(0);
  });

  it('holds a goal continuation while a sub-agent still works, and continues when its answer arrives', async () => {
    const run = await h.runInput({
      ...h.input({
        root: [
          py('h = rlm("compute 6*7 slowly", name="worker")\nprint("started")'),
          'Started the worker; waiting for its answer.',
          py('print(goal.complete("the worker answered 42")["status"])'),
          'Done: 42.',
        ],
        worker: [py('import time\ntime.sleep(3)\nx = 6 * 7'), '42'],
      }, 'get 6*7 from a worker'),
      goal: goal('get 6*7 from a worker'),
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'Done: 42.' });
    const types = run.types();
    // One continuation, after the child's answer: the model was not spun while it worked.
    expect(run.of('ContinuationInjected').map((c) => c.count)).toEqual([1]);
    expect(types.indexOf('SubagentCompleted')).toBeLessThan(types.indexOf('ContinuationInjected'));
    expect(types.slice(types.indexOf('ContinuationInjected'), types.indexOf('ContinuationInjected') + 3))
      .toEqual(['ContinuationInjected', 'MessageDelivered', 'ModelCalled']);
    expect(run.of('ModelCalled')).toHaveLength(4);
  });

  it('refuses to let the agent complete an open-ended goal, logs the refusal, and keeps going until a limit ends it with a wrap-up turn', async () => {
    const run = await h.runInput({
      ...h.input({
        root: [
          py('for attempt in (lambda: goal.complete("the search space is exhausted"), goal.clear):\n    try:\n        attempt()\n    except PermissionError as e:\n        print("refused:", e)'),
          'Nothing more to try; I am done.',
          py('print("still improving")'),
          'Wrap-up: best result so far is 3.27.',
        ],
      }, 'keep beating the best', { maxTurns: 3 }),
      goal: goal('keep beating the current best', { openEnded: true }),
    });
    expect(run.result).toMatchObject({ status: 'failed', kind: 'max_turns' });
    expect((run.result as { reason: string }).reason).toMatch(/turn limit reached.*wrapped up/);
    expect(run.of('GoalChanged').map((g) => [g.change, g.status])).toEqual([['set', 'active'], ['refused', 'active'], ['refused', 'active']]);
    expect(run.of('CellExecuted')[0].outputs.split('\n')).toEqual([
      expect.stringMatching(/^refused: .*open-ended.*cannot have it marked complete/), expect.stringMatching(/^refused: .*cannot have it cleared/),
    ]);
    expect(run.of('ContinuationInjected').map((c) => c.reason)).toEqual(['goal', 'wrap_up']);
    expect(run.of('ModelCalled').map((m) => m.response).at(-1)).toBe('Wrap-up: best result so far is 3.27.');
    expect(run.types().slice(-4)).toEqual(['CellExecuted', 'ContinuationInjected', 'ModelCalled', 'SessionFailed']);
  });

  it('ends at a goal\'s token budget: the goal is marked budget-limited, then one wrap-up turn', async () => {
    const run = await h.runInput({
      ...h.input({ root: ['I have nothing more to try.', 'Wrap-up: tried one idea; the best is unchanged.'] }, 'improve it'),
      goal: goal('keep improving the score', { openEnded: true, tokenBudget: 1 }),
    });
    expect(run.result).toMatchObject({ status: 'failed', kind: 'budget' });
    expect(run.types()).toEqual([
      'SessionStarted', 'GoalChanged', 'ModelCalled', 'ContinuationInjected', 'GoalChanged', 'ContinuationInjected', 'ModelCalled', 'SessionFailed',
    ]);
    const [, limited] = run.of('GoalChanged');
    expect(limited).toMatchObject({ change: 'budget_limited', status: 'budget_limited', tokenBudget: 1, reason: expect.stringMatching(/^goal token budget spent/) });
    expect(limited.tokensUsed).toBe(run.of('ModelCalled')[0].tokensIn + run.of('ModelCalled')[0].tokensOut);
    expect(run.of('SessionFailed')[0].reason).toMatch(/goal token budget spent.*wrapped up/);
  });

  it('ends an autonomous run at its token budget with one wrap-up model call and a clear status', async () => {
    const run = await h.runInput({
      ...h.input({ root: ['Working on it.', 'Report: did one step; the rest remains.', 'never reached'] }, 'a long job', { maxTokens: 1 }),
      autonomous: { gates: [], gateTimeoutSeconds: 30, gateCwd: null },
    });
    expect(run.result).toMatchObject({ status: 'failed', kind: 'budget' });
    // maxTokens is the tree's budget: logged at the start, then counted across the tree by the root.
    expect(run.types()).toEqual([
      'SessionStarted', 'BudgetSet', 'ModelCalled', 'ContinuationInjected', 'ContinuationInjected', 'ModelCalled', 'SessionFailed',
    ]);
    expect(run.of('ContinuationInjected').map((c) => c.reason)).toEqual(['autonomous', 'wrap_up']);
    expect(run.of('ContinuationInjected')[1].text).toMatch(/token budget spent/);
    expect(run.of('SessionFailed')[0]).toMatchObject({ kind: 'budget', reason: expect.stringMatching(/^tree token budget spent.*wrapped up/) });
  });

  it('runs quality gates when an autonomous agent says it is done: a failed gate is an event and sends it back to work', async () => {
    const input = h.input({ root: ['All done.', py('open("done", "w").write("ok")'), 'Done now.'] }, 'make the gate pass');
    // The agent changes only its workspace (its sandbox's one writable mount, and its working directory).
    const workspace = join(h.config.home, 'workspaces', sandboxKey(input.sessionId));
    // The first gate runs before the first cell starts the kernel that would create it.
    mkdirSync(workspace, { recursive: true });
    const run = await h.runInput({
      ...input,
      autonomous: { gates: ['test -f done && echo found', 'true'], gateTimeoutSeconds: 30, gateCwd: workspace },
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'Done now.' });
    expect(run.of('GateChecked').map((g) => [g.command, g.passed, g.exitCode, g.attempt])).toEqual([
      ['test -f done && echo found', false, 1, 1],
      ['test -f done && echo found', true, 0, 2], ['true', true, 0, 2],
    ]);
    expect(run.of('GateChecked')[1].output.trim()).toBe('found');
    expect(run.of('ContinuationInjected').map((c) => c.reason)).toEqual(['gate_failed']);
  });

  it('compacts older turns near the context budget: the goal stays in the prompt and finished work is not redone', async () => {
    const summary = 'Summary: cell 1 set total = sum(range(1000)) = 499500 and printed a long filler string.';
    const run = await h.runInput({
      ...h.input({
        root: [
          py('total = sum(range(1000))\nprint("x" * 4000)'),
          py('print(total)'),
          py('print(total * 2)'),
          py('_ = goal.complete("total is 499500")'),
          'The sum is 499500.',
        ],
        'root:compact': [summary, 'unused', 'unused'],
      }, 'find the sum of 0..999', { compactAtTokens: 1200 }),
      goal: goal('find the sum of 0..999'),
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'The sum is 499500.' });
    const compacted = run.of('Compacted');
    expect(compacted).toHaveLength(1);
    const events = run.sessions.get(run.id)!;
    const turn1 = events.filter((e) => e.type === 'ModelCalled')[1].seq;
    expect(compacted[0]).toMatchObject({ fromSeq: 1, toSeq: turn1 - 1, droppedTurns: 1, summary });
    expect(compacted[0].droppedChars).toBeGreaterThan(4000);
    expect(compacted[0].tokensAfter).toBeLessThan(compacted[0].tokensBefore);
    expect(compacted[0].tokensIn).toBeGreaterThan(0);
    // The Compacted event comes right before the model call that first used it.
    const at = events.findIndex((e) => e.type === 'Compacted');
    expect(events[at + 1].type).toBe('ModelCalled');
    // The kernel kept its variables: the later cell used `total` without recomputing it.
    const cells = run.of('CellExecuted');
    expect(cells.map((c) => c.outputs)).toEqual(['x'.repeat(4000), '499500', '999000', '']);
    expect(cells.filter((c) => c.code.includes('sum(range')).length).toBe(1);
    // The prompt rebuilt from the log has the goal and summary, not the dropped output.
    const prompt = buildPrompt(events.slice(0, at + 1));
    expect(prompt.system).toContain('<goal>find the sum of 0..999</goal>');
    expect(prompt.messages[0]).toMatchObject({ role: 'user', content: expect.stringContaining(summary) });
    expect(prompt.messages[0].content).toContain('find the sum of 0..999');
    expect(JSON.stringify(prompt.messages)).not.toContain('x'.repeat(100));
  });

  it('lets an operator clear an open-ended goal the agent may not, after which an answer ends the session', async () => {
    const input = {
      ...h.input({ root: [py('import time\ntime.sleep(4)\nprint("slept")'), 'I stop here.'] }, 'work until told'),
      goal: goal('keep improving', { openEnded: true }),
    };
    const handle = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [input] });
    for (let i = 0; i < 300 && (await handle.query(getStatusQuery)).phase !== 'cell'; i++) await new Promise((r) => setTimeout(r, 50));
    const reply = await handle.executeUpdate(goalUpdate, { args: [{ by: 'operator', action: 'clear' }] });
    expect(reply).toMatchObject({ ok: true, goal: { status: 'cleared', openEnded: true } });
    const run = await h.read(input.sessionId, await h.result(input.sessionId));
    expect(run.result).toEqual({ status: 'completed', answer: 'I stop here.' });
    expect(run.of('GoalChanged').map((g) => g.change)).toEqual(['set', 'cleared']);
    expect(run.of('ContinuationInjected')).toEqual([]);
  });

  it('wakes an idle session early when a nearer schedule is added, fires it, and ends once no schedule is left', async () => {
    const input = h.input({
      root: [
        py('print(schedule.add("every 1h", "hourly check")[0]["id"])'),
        'Idle until the next check.',
        py('print([s["id"] for s in schedule.cancel("s1")])'),
        'No schedules left.',
      ],
    }, 'watch');
    const handle = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [input] });
    for (let i = 0; i < 300 && (await handle.query(getStatusQuery)).phase !== 'idle'; i++) await new Promise((r) => setTimeout(r, 100));
    const added = await handle.executeUpdate(scheduleUpdate, { args: [{ action: 'add', spec: 'in 2s', instruction: 'look now' }] });
    expect(added.ok && added.schedules.map((x) => x.id)).toEqual(['s1', 's2']);
    const run = await h.read(input.sessionId, await h.result(input.sessionId));
    expect(run.result).toEqual({ status: 'completed', answer: 'No schedules left.' });
    expect(run.of('ScheduleFired').map((f) => [f.scheduleId, f.instruction, f.missed])).toEqual([['s2', 'look now', 0]]);
    expect(run.of('ScheduleChanged').map((c) => [c.scheduleId, c.change])).toEqual([['s1', 'added'], ['s2', 'added'], ['s2', 'finished'], ['s1', 'cancelled']]);
    expect(run.of('CellExecuted').map((c) => c.outputs)).toEqual(['s1', '[]']);
  });

  it('fires a heartbeat that came due while no worker ran, once, with the missed ticks coalesced', async () => {
    const input = h.input({
      root: [
        py('print(schedule.add("every 5s", "check on the job")[0]["id"])'),
        'Waiting for the job; the heartbeat will bring me back.',
        py('schedule.cancel("s1")\nprint("job checked")'),
        'The job finished.',
      ],
    }, 'watch a job');
    const handle = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [input] });
    for (let i = 0; i < 300 && (await handle.query(getStatusQuery)).phase !== 'idle'; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await handle.query(getStatusQuery)).phase).toBe('idle');
    await h.stop();
    // Down past two ticks: the durable timer fires on the server; the next worker runs the tick, once.
    await new Promise((r) => setTimeout(r, 12_000));
    await h.start();
    const run = await h.read(input.sessionId, await h.result(input.sessionId));
    expect(run.result).toEqual({ status: 'completed', answer: 'The job finished.' });
    const fired = run.of('ScheduleFired');
    expect(fired).toHaveLength(1);
    expect(fired[0]).toMatchObject({ scheduleId: 's1', instruction: 'check on the job', runCount: 1 });
    expect(fired[0].missed).toBeGreaterThanOrEqual(1);
    expect(run.of('ScheduleChanged').map((c) => [c.scheduleId, c.change, c.kind])).toEqual([['s1', 'added', 'every'], ['s1', 'cancelled', 'every']]);
    expect(run.of('CellExecuted').map((c) => c.outputs)).toEqual(['s1', 'job checked']);
    const types = run.types();
    expect(types.indexOf('ScheduleFired')).toBe(types.lastIndexOf('ModelCalled', types.indexOf('ScheduleFired')) + 1);
  }, 120_000);
});
