import { ServerConnection } from '@jupyterlab/services';
import { createJupyterSessions } from '../../activities/kernel/jupyter-sessions';
import { jupyterConnection } from '../../config/home-paths';
import { deliverMessageSignal } from '../../workflows/messages';
import type { SessionResult } from '../../workflows/session-types';
import { type TreeLog, logged, until, untilLogged as pollTreeLog } from '../helpers/poll-tree-log';
import { kernelProcesses } from '../helpers/kernel-processes';
import { SessionHarness, py } from '../helpers/session-harness';

describe('idle unload of retained sub-agents (real Temporal, Kafka, Jupyter; scripted model)', () => {
  const h = new SessionHarness();
  const jupyter = () => createJupyterSessions(ServerConnection.makeSettings(jupyterConnection(h.config)), 'python3');
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  const untilLogged = (root: string, what: string, ready: (log: TreeLog) => boolean) => pollTreeLog(h.config, root, what, ready);

  it('unloads a retained child after its idle limit (kernel gone), and a new task reloads it with its variables', async () => {
    const input = h.input({
      root: [
        py(`
h = rlm("set x", name="kid")
print(h.result(timeout=120))
while (m := agent_message.recv(timeout=300))["from"] != "user":
    pass
print(m["text"])`),
        py(`
h = rlm("report x", name="kid")
print(h.result(timeout=120))`),
        'done',
      ],
      // kid waits on "slow" longer than the idle limit: a session waiting on a running child is never unloaded.
      kid: [
        py(`
import os
x = 41
pid = os.getpid()
g = rlm("take a while", name="slow")
print(pid, g.result(timeout=120))`),
        'kid set x',
        py('print(x + 1, pid)'),
        py('final(str(x + 1))'),
      ],
      slow: [py('import time\ntime.sleep(5)\nprint("slept")'), 'slow done'],
    }, 'idle unload', { idleUnloadSeconds: 3, snapshotEveryCells: 100 });
    const root = input.sessionId;
    const kid = `${root}/kid`;
    const slow = `${root}/kid/slow`;
    const handle = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: root, args: [input] });

    const before = await untilLogged(root, 'both children to unload', (log) => logged(log, kid, 'SessionUnloaded') && logged(log, slow, 'SessionUnloaded'));
    // The kernels are gone: no Jupyter session maps to them, and the kid's kernel process has exited.
    expect(await jupyter().find(kid)).toBeUndefined();
    expect(await jupyter().find(slow)).toBeUndefined();
    expect(kernelProcesses(h.config, kid)).toEqual([]);
    const kidCells = before.sessions.get(kid)!.filter((e) => e.event.type === 'CellExecuted');
    const pid = Number((kidCells[0].event as { outputs: string }).outputs.split(' ')[0]);

    await handle.signal(deliverMessageSignal, { messageId: `${root}#user-1`, from: 'user', text: 'go' });
    const result = await handle.result().then((r) => r as SessionResult);
    expect(result).toEqual({ status: 'completed', answer: 'done' });
    const run = await h.read(root, result);

    const kidTypes = run.types(kid);
    expect(kidTypes.slice(kidTypes.indexOf('SessionCompleted'))).toEqual([
      'SessionCompleted', 'KernelSnapshotted', 'SessionUnloaded',
      'SessionReloaded', 'MessageDelivered', 'ModelCalled', 'CellRequested', 'KernelRestored', 'CellExecuted',
      'ModelCalled', 'CellRequested', 'CellExecuted', 'TaskEnded',
    ]);
    // Its first task outlasted the idle limit while it waited on slow: no unload before it ended.
    expect(kidTypes.indexOf('SessionUnloaded')).toBeGreaterThan(kidTypes.indexOf('SessionCompleted'));
    const [snap] = run.of('KernelSnapshotted', kid);
    const [gone] = run.of('SessionUnloaded', kid);
    expect(gone).toMatchObject({ manifest: snap.manifest, coversSeq: snap.coversSeq, idleSeconds: 3 });
    const [tasked] = run.of('SubagentTasked');
    expect(tasked).toMatchObject({ childId: kid, name: 'kid', task: 'report x' });
    expect(run.of('SessionReloaded', kid)).toEqual([expect.objectContaining({ messageId: tasked.messageId, from: root })]);
    const [restored] = run.of('KernelRestored', kid);
    expect(restored).toMatchObject({ fromSnapshotSeq: snap.coversSeq, failed: [], replayedCells: [] });
    expect(restored.restored).toEqual(expect.arrayContaining(['x', 'pid']));
    expect(run.of('CellExecuted', kid)[1].outputs).toMatch(new RegExp(`\\n42 ${pid}$`));
    // The kid is told in one line why its kernel came back, and that it was on purpose.
    expect(run.of('CellExecuted', kid)[1].outputs).toMatch(/^\[your kernel was unloaded while you were idle and has been reloaded: /);
    expect(run.of('TaskEnded', kid)).toEqual([expect.objectContaining({ round: 1, status: 'completed', answer: '42' })]);

    // The root got both answers; it was never unloaded (a root is never retained).
    expect(run.of('CellExecuted').map((c) => c.outputs)).toEqual(['kid set x\ngo', '42']);
    expect(run.of('SubagentCompleted').map((c) => c.answer)).toEqual(['kid set x', '42']);
    expect(run.types()).not.toContain('SessionUnloaded');
    expect(run.types(slow)).toContain('SessionUnloaded');

    // Retained children end with their parent: no workflow is left running, no kernel left loaded.
    for (const id of [kid, slow]) {
      const status = await until(`${id} to end`, async () => {
        const s = (await h.client.workflow.getHandle(id).describe()).status.name;
        return s === 'RUNNING' ? undefined : s;
      });
      expect(status).toBe('CANCELLED');
      expect(await jupyter().find(id)).toBeUndefined();
    }
  }, 240_000);
  it('a plain message reloads an unloaded child transparently to the sender; its retained state survives continue-as-new', async () => {
    const input = h.input({
      root: [
        py(`
rlm("set x", name="kid").result(timeout=120)
while (m := agent_message.recv(timeout=300))["from"] != "user":
    pass`),
        py(`
agent_message.send("what is x?", to="child:kid")
print(agent_message.recv(timeout=120)["text"])
while (m := agent_message.recv(timeout=300))["from"] != "user":
    pass`),
        'done',
      ],
      kid: [py('x = 5'), 'has x', py('y = x * 2'), py('agent_message.send(str(x), to="parent")'), 'replied'],
    }, 'idle unload by message', { idleUnloadSeconds: 3, snapshotEveryCells: 100, turnsPerRun: 2 });
    const root = input.sessionId;
    const kid = `${root}/kid`;
    const handle = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: root, args: [input] });
    await untilLogged(root, 'the child to unload', (log) => logged(log, kid, 'SessionUnloaded'));
    expect(await jupyter().find(kid)).toBeUndefined();

    await handle.signal(deliverMessageSignal, { messageId: `${root}#user-1`, from: 'user', text: 'go' });
    // The root ends only once the child has finished replying: an ending root would cancel it mid-reply.
    await untilLogged(root, 'the child to end its reply', (log) => logged(log, kid, 'TaskEnded'));
    await handle.signal(deliverMessageSignal, { messageId: `${root}#user-2`, from: 'user', text: 'end' });
    const result = await handle.result().then((r) => r as SessionResult);
    expect(result).toEqual({ status: 'completed', answer: 'done' });
    const run = await h.read(root, result);

    // The sender saw nothing of the unload: its send succeeded and the answer came from the restored x.
    expect(run.of('CellExecuted').map((c) => c.outputs)).toEqual(['', '5']);
    expect(run.types()).not.toContain('MessageRefused');
    const [sent] = run.of('MessageSent').filter((m) => m.to === kid);
    expect(run.of('SessionReloaded', kid)).toEqual([expect.objectContaining({ messageId: sent.messageId, from: root })]);
    expect(run.of('KernelRestored', kid)[0].restored).toContain('x');
    // The reply's round spans a continue-as-new (turnsPerRun 2) and still ends as a later task, not a second SessionCompleted.
    expect(run.of('SessionCompleted', kid)).toHaveLength(1);
    expect(run.of('TaskEnded', kid)).toEqual([expect.objectContaining({ round: 1, status: 'completed', answer: 'replied' })]);
  }, 240_000);
  it('a task\'s end stops the children still running on it, and their ending does not wake the retained session', async () => {
    const input = h.input({
      root: [py(`
print(rlm("start a helper", name="kid").result(timeout=120))
while (m := agent_message.recv(timeout=300))["from"] != "user":
    pass`), 'done'],
      kid: [py('s = rlm("wait for a message that never comes", name="sleeper")'), 'left it running'],
      sleeper: [py('agent_message.recv(timeout=600)'), 'never'],
    }, 'stop on task end', { idleUnloadSeconds: 3 });
    const root = input.sessionId;
    const kid = `${root}/kid`;
    const handle = await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: root, args: [input] });
    await untilLogged(root, 'the child to unload', (log) => logged(log, kid, 'SessionUnloaded'));
    await handle.signal(deliverMessageSignal, { messageId: `${root}#user-1`, from: 'user', text: 'end' });
    const run = await h.read(root, await handle.result().then((r) => r as SessionResult));
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    expect(run.of('SessionFailed', `${kid}/sleeper`)).toEqual([expect.objectContaining({ kind: 'cancelled' })]);
    const kidTypes = run.types(kid);
    expect(kidTypes.slice(kidTypes.indexOf('SessionCompleted'))).toEqual(['SessionCompleted', 'KernelSnapshotted', 'SessionUnloaded']);
  }, 240_000);
});
