import { carriedBatches } from '../helpers/carried-batches';
import { SessionHarness, py } from '../helpers/session-harness';
import { TEST_SECRET } from '../helpers/test-stack';

describe('durable RLM session (real Temporal, Kafka, Jupyter; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('ends with the text of a reply that has no code', async () => {
    const run = await h.run({ root: ['The answer is 4.'] }, 'what is 2+2?');
    expect(run.result).toEqual({ status: 'completed', answer: 'The answer is 4.' });
    expect(run.types()).toEqual(['SessionStarted', 'ModelCalled', 'SessionCompleted']);
    const [started] = run.of('SessionStarted');
    expect(started).toMatchObject({ task: 'what is 2+2?', name: 'root', depth: 0, parentId: null });
    const [called] = run.of('ModelCalled');
    expect(called).toMatchObject({ turn: 0, provider: 'scripted', response: 'The answer is 4.', toolCalls: [] });
  });

  it('spawns two children that compute in their own kernels; the root combines their answers', async () => {
    const run = await h.run({
      root: [
        py(`
a = rlm("compute 6*7", name="alpha")
b = rlm("compute 10+5", name="beta")
ra, rb = a.result(timeout=120), b.result(timeout=120)
total = int(ra) + int(rb)
print(ra, rb, total)`),
        py('final(total)'),
      ],
      alpha: [py('x = 6 * 7\nprint(x)'), py("print('y' in globals())"), '42'],
      beta: [py('y = 10 + 5'), py('final(y)')],
    });
    expect(run.result).toEqual({ status: 'completed', answer: '57' });

    const root = run.id;
    expect(run.types(root)).toEqual([
      'SessionStarted', 'ModelCalled', 'CellRequested',
      'SubagentSpawned', 'SubagentSpawned', 'SubagentCompleted', 'SubagentCompleted',
      'CellExecuted', 'MessageDelivered', 'MessageDelivered', 'ModelCalled', 'CellRequested', 'CellExecuted',
      'SessionCompleted',
    ]);
    expect(run.of('SubagentSpawned').map((e) => [e.childId, e.name, e.task]))
      .toEqual([[`${root}/alpha`, 'alpha', 'compute 6*7'], [`${root}/beta`, 'beta', 'compute 10+5']]);
    expect(run.of('SubagentCompleted').map((e) => [e.childId, e.status, e.answer]).sort())
      .toEqual([[`${root}/alpha`, 'completed', '42'], [`${root}/beta`, 'completed', '15']]);
    const [firstCell] = run.of('CellExecuted');
    expect(firstCell).toMatchObject({ status: 'ok', outputs: '42 15 57' });
    // The children's answers also reach the root as messages, shown at its next turn.
    const delivered = run.of('MessageDelivered');
    expect(delivered.map((m) => [m.from, m.via]).sort())
      .toEqual([[`${root}/alpha`, 'prompt'], [`${root}/beta`, 'prompt']]);

    // Each child ran in a kernel of its own: alpha never saw beta's `y`.
    const alphaCells = run.of('CellExecuted', `${root}/alpha`);
    expect(alphaCells.map((c) => c.outputs)).toEqual(['42', 'False']);
    expect(run.of('SessionStarted', `${root}/alpha`)[0]).toMatchObject({ parentId: root, depth: 1, name: 'alpha' });
    expect(run.of('SessionCompleted', `${root}/alpha`)).toEqual([expect.objectContaining({ answer: '42' })]);
    expect(run.of('SessionCompleted', `${root}/beta`)).toEqual([expect.objectContaining({ answer: '15' })]);
    expect([...run.sessions.keys()].sort()).toEqual([root, `${root}/alpha`, `${root}/beta`]);
  });

  it('delivers a child-to-parent message exactly once and logs both ends', async () => {
    const run = await h.run({
      root: [
        py(`
c = rlm("say hello", name="kid")
c.result(timeout=120)
m = agent_message.recv(timeout=30)
print(m["from"], m["text"])`),
        'done',
      ],
      kid: [py('agent_message.send("hello parent", to="parent")'), 'sent'],
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const kid = `${run.id}/kid`;
    const [sent] = run.of('MessageSent', kid);
    expect(sent).toMatchObject({ from: kid, to: run.id, text: 'hello parent' });
    const delivered = run.of('MessageDelivered').filter((m) => m.messageId === sent.messageId);
    expect(delivered).toEqual([expect.objectContaining({ from: kid, to: run.id, text: 'hello parent', via: 'kernel' })]);
    expect(run.of('CellExecuted')[0].outputs).toBe(`${kid} hello parent`);
  });

  it('refuses a message to a non-family session with a clear error, and logs the refusal', async () => {
    const run = await h.run({
      root: [
        py(`
for to in ["sibling:bob", "someone-else/x", "child:nobody"]:
    try:
        agent_message.send("psst", to=to)
    except PermissionError as e:
        print("refused:", e)`),
        'ok',
      ],
    });
    const refusals = run.of('MessageRefused');
    expect(refusals.map((r) => r.to)).toEqual(['sibling:bob', 'someone-else/x', 'child:nobody']);
    expect(refusals[0].reason).toMatch(/root session and has no siblings/);
    expect(refusals[1].reason).toMatch(/not in .* family/);
    const out = run.of('CellExecuted')[0].outputs;
    expect(out.split('\n').filter((l) => l.startsWith('refused:'))).toHaveLength(3);
    expect(run.of('MessageSent')).toEqual([]);
  });

  it('interrupts a cell at its timeout, tells the model, and keeps the kernel and its variables', async () => {
    const run = await h.run({
      root: [py('z = 5\nimport time\nwhile True:\n    time.sleep(0.05)'), py("print('alive', z)"), 'survived'],
    }, 'loop forever', { cellTimeoutSeconds: 2 });
    expect(run.result).toEqual({ status: 'completed', answer: 'survived' });
    const [looped, after] = run.of('CellExecuted');
    expect(looped.status).toBe('timeout');
    expect(after).toMatchObject({ status: 'ok', outputs: 'alive 5' });
  });

  it('returns a raising cell\'s traceback to the model and carries on', async () => {
    const run = await h.run({ root: [py('1/0'), 'recovered'] });
    expect(run.result).toEqual({ status: 'completed', answer: 'recovered' });
    const [cell] = run.of('CellExecuted');
    expect(cell).toMatchObject({ status: 'error', errorName: 'ZeroDivisionError' });
    expect(cell.traceback).toMatch(/ZeroDivisionError/);
    expect(cell.traceback).not.toMatch(/\u001b\[/);
  });

  it('fails cleanly when the scripted model runs out of replies', async () => {
    const run = await h.run({ root: [py('print(1)')] });
    expect(run.result).toMatchObject({ status: 'failed', kind: 'script_exhausted' });
    expect(run.types()).toEqual(['SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SessionFailed']);
    expect(run.of('SessionFailed')[0]).toMatchObject({ kind: 'script_exhausted', reason: expect.stringMatching(/no reply left/) });
  });

  it('ends at the turn limit with a failure event, never silently', async () => {
    const run = await h.run({ root: [py('a = 1'), py('b = 2'), py('c = 3')] }, 'loop', { maxTurns: 2 });
    expect(run.result).toMatchObject({ status: 'failed', kind: 'max_turns' });
    expect(run.of('SessionFailed')[0].reason).toMatch(/turn limit reached: 2 of 2/);
  });

  it('refuses rlm() past the depth limit with a clear error in the kernel', async () => {
    const run = await h.run({
      root: [py('h = rlm("go deeper", name="kid")\nprint(h.result(timeout=120))'), 'done'],
      kid: [py(`
try:
    rlm("too deep", name="grandkid")
except PermissionError as e:
    print("refused:", e)`), 'kid done'],
    }, 'depth', { maxDepth: 1 });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const kidCell = run.of('CellExecuted', `${run.id}/kid`)[0];
    expect(kidCell.outputs).toMatch(/refused: .*depth limit 1 reached/);
    expect(run.sessions.has(`${run.id}/kid/grandkid`)).toBe(false);
  });

  it('continues as new on a long session and keeps one gap-free log and one kernel across runs', async () => {
    const cells = [0, 1, 2, 3, 4].map((i) => py(`n${i} = ${i}`));
    const run = await h.run({ root: [...cells, py('print(n0 + n1 + n2 + n3 + n4)'), 'done'] }, 'long', { turnsPerRun: 2 });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    expect(run.of('CellExecuted').map((c) => c.outputs).pop()).toBe('10');
    expect(run.of('ModelCalled').map((m) => m.turn)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const runs = [];
    for await (const wf of h.client.workflow.list({ query: `WorkflowId = "${run.id}"` })) runs.push(wf.runId);
    expect(runs.length).toBeGreaterThanOrEqual(3);
  });

  it('never puts provider keys or the Jupyter token in a kernel\'s environment', async () => {
    expect(process.env.OPENAI_API_KEY).toBe(TEST_SECRET);
    const run = await h.run({
      root: [py(`
import os
leaks = sorted(k for k, v in os.environ.items() if "sk-recur" in v or k.endswith("_API_KEY") or "JUPYTER_TOKEN" in k)
print(leaks, len(os.environ) > 0)`), 'checked'],
    });
    expect(run.of('CellExecuted')[0].outputs).toBe('[] True');
  });

  it('lists children with their status and stops one with rlm.delete, which the child logs as cancelled', async () => {
    const run = await h.run({
      root: [
        py(`
import time
slow = rlm("wait for a message that never comes", name="sleeper")
print([(c["name"], c["status"]) for c in rlm.list()])
rlm.delete("sleeper")
for _ in range(300):
    if slow.status() != "running":
        break
    time.sleep(0.1)
print(slow.status())
try:
    slow.result(timeout=5)
except Exception as e:
    print(type(e).__name__)`),
        'stopped it',
      ],
      sleeper: [py('agent_message.recv(timeout=600)'), 'never'],
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'stopped it' });
    expect(run.of('CellExecuted')[0].outputs).toBe("[('sleeper', 'running')]\ncancelled\nSubagentFailedError");
    const sleeper = `${run.id}/sleeper`;
    expect(run.of('SessionFailed', sleeper)).toEqual([expect.objectContaining({ kind: 'cancelled' })]);
    expect(run.of('SubagentCompleted')).toEqual([expect.objectContaining({ childId: sleeper, status: 'cancelled' })]);
  });

  // A budget makes the workflow take each step itself (workflows/worker-steps.ts); without one the worker runs them.
  it.each([
    ['the workflow runs the steps', { maxTokens: 100_000_000 }],
    ['the worker runs the steps', {}],
  ])('snapshots the kernel on a cadence; after the kernel dies it restores the snapshot, re-runs later cells, and reports the lost cell as interrupted (%s)', async (by, budget) => {
    const run = await h.run({
      root: [
        py('a = 1'),
        py('b = a + 1'),
        py('c = b * 10'),
        py('import os, signal\nos.kill(os.getpid(), signal.SIGKILL)'),
        py('print(a, b, c)'),
        'restored',
      ],
    }, 'survive a kernel crash', { snapshotEveryCells: 2, ...budget });
    expect(run.result).toEqual({ status: 'completed', answer: 'restored' });
    const types = run.types();
    const cells = run.of('CellExecuted');
    expect(cells.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'interrupted', 'ok']);
    expect(cells[4].outputs).toMatch(/^\[your kernel was lost and has been restored: 2 variable\(s\) from the snapshot at #\d+, 1 later cell\(s\) re-run; not re-run: .* \(interrupted when the kernel was lost\)\]\n1 2 20$/);

    const [snap] = run.of('KernelSnapshotted');
    expect(snap).toMatchObject({ variables: 2, unsaved: [] });
    const requests = run.of('CellRequested').map((r) => r.cellId);
    const [restored] = run.of('KernelRestored');
    expect(restored).toMatchObject({
      fromSnapshotSeq: snap.coversSeq, restored: ['a', 'b'], failed: [],
      replayedCells: [requests[2]], interruptedCell: requests[3],
    });
    // The restore is logged before the cell it preceded, and after the snapshot it used.
    expect(types.indexOf('KernelRestored')).toBeGreaterThan(types.indexOf('KernelSnapshotted'));
    expect(types.lastIndexOf('CellExecuted')).toBeGreaterThan(types.indexOf('KernelRestored'));
    // Its event is logged with the reply it ran beside, just before it.
    expect(types.flatMap((t, i) => (t === 'KernelSnapshotted' ? [types[i + 1]] : []))).toEqual(['ModelCalled', 'ModelCalled']);
    const history = await h.client.workflow.getHandle(run.id).fetchHistory();
    const activities = (history.events ?? []).map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    if (by === 'the worker runs the steps') {
      // The snapshots, the restore and the lost cell all came about in the worker's steps.
      expect(activities).not.toContain('snapshotKernel');
      expect(activities).toContain('runSteps');
      return;
    }
    expect(activities).not.toContain('runSteps');
    // Each of the cadence's snapshots (after cells 2 and 5; the one after cell 4 found no kernel) runs
    // beside the next model call, asked for in the same workflow task, and carries no batch: the
    // cell's end rides the model call.
    const asked = new Map<string, string[]>();
    for (const e of history.events ?? []) {
      const a = e.activityTaskScheduledEventAttributes;
      if (!a) continue;
      const task = String(a.workflowTaskCompletedEventId);
      asked.set(task, [...(asked.get(task) ?? []), a.activityType?.name ?? '']);
    }
    expect([...asked.values()].filter((names) => names.includes('snapshotKernel')).map((names) => names.sort())).toEqual(Array(3).fill(['callModel', 'snapshotKernel']));
    const batches = carriedBatches(history);
    expect(batches.filter((b) => b.by === 'snapshotKernel')).toEqual([]);
    // No append of its own: it goes to the log in one batch with the reply it ran beside.
    const withSnapshot = batches.filter((b) => b.types.includes('KernelSnapshotted'));
    expect(withSnapshot.length).toBeGreaterThanOrEqual(2);
    expect(withSnapshot.map((b) => b.types[b.types.indexOf('KernelSnapshotted') + 1])).toEqual(withSnapshot.map(() => 'ModelCalled'));
  });
});
