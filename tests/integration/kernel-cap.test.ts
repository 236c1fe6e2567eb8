import { ServerConnection } from '@jupyterlab/services';
import { createJupyterSessions } from '../../activities/kernel/jupyter-sessions';
import { jupyterConnection } from '../../config/home-paths';
import { deliverMessageSignal } from '../../workflows/messages';
import type { SessionResult } from '../../workflows/session-types';
import { type TreeLog, logged, until, untilLogged as pollTreeLog } from '../helpers/poll-tree-log';
import { SessionHarness, py } from '../helpers/session-harness';

describe('a cap on loaded kernels per host (RECUR_MAX_LOADED_KERNELS=3; real Temporal, Kafka, Jupyter; scripted model)', () => {
  const h = new SessionHarness({ RECUR_MAX_LOADED_KERNELS: '3' });
  const jupyter = () => createJupyterSessions(ServerConnection.makeSettings(jupyterConnection(h.config)), 'python3');
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());
  // Each case starts on an empty host: the kernels of the one before are freed as its tree ends, and
  // roots other files left open after their answers (they stay addressable, idle) are ended here.
  beforeEach(async () => {
    for await (const open of h.client.workflow.list({ query: 'ExecutionStatus = "Running"' })) {
      await h.client.workflow.getHandle(open.workflowId).cancel().catch(() => undefined);
    }
    await until('an empty host', async () => ((await jupyter().listLoaded()).length === 0 ? true : undefined));
  }, 120_000);

  const untilLogged = (root: string, what: string, ready: (log: TreeLog) => boolean) => pollTreeLog(h.config, root, what, ready);

  it('a full host unloads its least recently used idle child for a new one, and the unloaded child reloads with its variables', async () => {
    const input = h.input({
      root: [
        py(`
print(rlm("set x", name="a").result(timeout=120))
print(rlm("set y", name="b").result(timeout=120))
print(rlm("needs a kernel", name="c").result(timeout=120))
while (m := agent_message.recv(timeout=300))["from"] != "user":
    pass`),
        py('print(rlm("report x", name="a").result(timeout=120))'),
        'done',
      ],
      a: [py('x = 41'), 'a has x', py('print(x + 1)'), 'a reported'],
      b: [py('y = 2'), 'b has y'],
      c: [py('print("c ran")'), 'c done'],
    }, 'kernel cap: LRU unload');
    const root = input.sessionId;
    const [a, b, c] = ['a', 'b', 'c'].map((n) => `${root}/${n}`);
    const handle = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: root, args: [input] });

    // root, a and b filled the host; c's first cell made a (idle longest) unload before c's kernel started.
    await untilLogged(root, 'c to answer', (log) => logged(log, c, 'SessionCompleted'));
    const log = await untilLogged(root, 'a to unload', (l) => logged(l, a, 'SessionUnloaded'));
    expect(logged(log, b, 'SessionUnloaded')).toBe(false);
    expect(await jupyter().find(a)).toBeUndefined();
    expect((await jupyter().listLoaded()).map((k) => k.sessionId).sort()).toEqual([root, b, c].sort());

    await handle.signal(deliverMessageSignal, { messageId: `${root}#user-1`, from: 'user', text: 'go' });
    const result = await handle.result().then((r) => r as SessionResult);
    expect(result).toEqual({ status: 'completed', answer: 'done' });
    const run = await h.read(root, result);

    expect(run.of('CellExecuted', c)).toEqual([expect.objectContaining({ status: 'ok', outputs: 'c ran' })]);
    // a went the idle timer's way, early: snapshot, kernel shut down, SessionUnloaded with fewer seconds than its 30-minute limit.
    const aTypes = run.types(a);
    expect(aTypes.slice(aTypes.indexOf('SessionCompleted'), aTypes.indexOf('SessionReloaded') + 1))
      .toEqual(['SessionCompleted', 'KernelSnapshotted', 'SessionUnloaded', 'SessionReloaded']);
    const [snap] = run.of('KernelSnapshotted', a);
    const [gone] = run.of('SessionUnloaded', a);
    expect(gone).toMatchObject({ manifest: snap.manifest, coversSeq: snap.coversSeq });
    expect(gone.idleSeconds).toBeLessThan(input.limits.idleUnloadSeconds);
    // Re-tasking a needed a kernel on a full host again: b, now the least recently used idle child, made room.
    expect(run.of('SessionUnloaded', b)).toEqual([expect.objectContaining({ idleSeconds: expect.any(Number) })]);
    expect(run.of('SessionUnloaded', b)[0].idleSeconds).toBeLessThan(input.limits.idleUnloadSeconds);
    expect(run.of('KernelRestored', a)[0].restored).toContain('x');
    expect(run.of('CellExecuted', a)[1].outputs).toMatch(/^\[your kernel was unloaded while you were idle and has been reloaded: [^\n]*\]\n42$/);
    expect(run.of('TaskEnded', a)).toEqual([expect.objectContaining({ round: 1, status: 'completed', answer: 'a reported' })]);
    expect(run.types(c)).not.toContain('SessionUnloaded');
    expect(run.of('CellExecuted').map((e) => e.outputs)).toEqual(['a has x\nb has y\nc done', 'a reported']);
  }, 300_000);

  it('a full host with no idle child refuses the new kernel with a LimitError in the cell; the session goes on and runs once a child idles', async () => {
    const waiter = [py('agent_message.send("ready", to="parent")\nprint(agent_message.recv(timeout=120)["text"])'), 'went'];
    const input = h.input({
      root: [
        py(`
a = rlm("wait for go", name="a")
b = rlm("wait for go", name="b")
for _ in range(2):
    agent_message.recv(timeout=120)
print(rlm("needs a kernel", name="c").result(timeout=120))
for n in ("a", "b"):
    agent_message.send("go", to=f"child:{n}")
print(a.result(timeout=120), b.result(timeout=120))
print(rlm("try again", name="c").result(timeout=120))`),
        'done',
      ],
      a: waiter,
      b: waiter,
      c: [py('print("c ran")'), 'no kernel for c', py('print("c ran", 6 * 7)'), 'c ran later'],
    }, 'kernel cap: refusal');
    const root = input.sessionId;
    const [a, b, c] = ['a', 'b', 'c'].map((n) => `${root}/${n}`);
    const run = await h.runInput(input);
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });

    // Root, a and b all busy in a cell: nothing to unload, so c's first cell never ran and c was told why.
    const [refused, later] = run.of('CellExecuted', c);
    expect(refused).toMatchObject({ status: 'interrupted', errorName: 'LimitError' });
    expect(refused.outputs).toMatch(/^LimitError: loaded-kernels-per-host limit: 3 of 3 kernels are loaded on this host and no idle retained sub-agent can be unloaded/);
    expect(refused.outputs).toContain('(setting: RECUR_MAX_LOADED_KERNELS=3)');
    expect(run.of('SessionCompleted', c)).toEqual([expect.objectContaining({ answer: 'no kernel for c' })]);
    // Once a and b answered and idled, c's next cell got a kernel by unloading one of them; the refused cell was not re-run.
    expect(later).toMatchObject({ status: 'ok' });
    expect(later.outputs).toMatch(/\nc ran 42$/);
    expect(later.outputs).not.toMatch(/^c ran$/m);
    expect([...run.of('SessionUnloaded', a), ...run.of('SessionUnloaded', b)]).toHaveLength(1);
    expect(run.of('CellExecuted').map((e) => e.outputs)).toEqual(['no kernel for c\nwent went\nc ran later']);
  }, 300_000);
});
