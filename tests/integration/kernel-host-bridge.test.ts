import { randomUUID } from 'node:crypto';
import { createKernelClient, type KernelClient } from '../../activities/kernel';
import { loadConfig } from '../../config';
import { ScopeError } from '../../errors';
import { type HostBridge, startHostBridge } from '../../services/host-bridge';
import { jupyterConnection } from '../../config/home-paths';
import { createKernelHost } from '../../services/sandbox';

interface Call {
  sessionId: string;
  op: string;
  args: Record<string, unknown>;
}

/** Python in a running cell calling the host over the loopback bridge, as its own session only. */
describe('kernel → host bridge', () => {
  let bridge: HostBridge;
  let client: KernelClient;
  const calls: Call[] = [];
  const sessions: string[] = [];
  const record = (op: string, result: (args: Record<string, unknown>, sessionId: string) => unknown) =>
    bridge.handle(op, async (sessionId, args) => {
      calls.push({ sessionId, op, args });
      return result(args, sessionId);
    });
  const start = async () => {
    const s = `kb-${randomUUID()}`;
    sessions.push(s);
    await client.start(s);
    return s;
  };
  const run = async (s: string, code: string) => {
    const r = await client.execute(s, code, { timeoutMs: 30_000 });
    if (r.status !== 'ok') throw new Error(`cell failed: ${r.error?.traceback ?? r.status}`);
    return r;
  };

  beforeAll(async () => {
    bridge = await startHostBridge();
    client = createKernelClient({ ...jupyterConnection(loadConfig()), host: createKernelHost(loadConfig(), bridge) });
    record('echo', (args, sessionId) => ({ sessionId, args }));
    record('rlm.spawn', (args) => ({ id: 'child-1', name: args.name ?? 'sub-1' }));
    let polls = 0;
    record('rlm.result', () => (++polls < 3 ? { done: false } : { done: true, value: 'child answer' }));
    record('rlm.status', () => ({ status: 'running' }));
    record('rlm.list', () => [{ id: 'child-1', name: 'sub-1', status: 'running' }]);
    record('rlm.delete', (args) => ({ deleted: args.name }));
    record('agent_message.send', (args) => {
      if (args.to === 'child:stranger') throw new ScopeError('stranger is not in your family');
      return { id: 'm1' };
    });
    record('agent_message.inbox', () => [{ from: 'parent', text: 'hi' }]);
    record('agent_message.recv', () => ({ message: { from: 'parent', text: 'next' } }));
    record('final', () => null);
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => client.shutdown(s).catch(() => undefined)));
    client.dispose();
    await bridge.close();
  });
  beforeEach(() => calls.splice(0));

  test('a running cell calls the host and gets its answer', async () => {
    const s = await start();
    const r = await run(s, 'import json, recur_kernel\nprint(json.dumps(recur_kernel.call("echo", {"n": 1, "text": "ü"})))');
    expect(JSON.parse(r.stdout)).toEqual({ sessionId: s, args: { n: 1, text: 'ü' } });
  });

  test("session A's token cannot act as session B", async () => {
    const [a, b] = [await start(), await start()];
    const forge = [
      'from recur_kernel import _session, _host',
      'token = _session._client._headers["Authorization"].split()[1]',
      `forged = _host.HostClient(_session._client.url, ${JSON.stringify(b)}, token)`,
      'try:\n    forged.call("echo", {})\n    print("accepted")',
      'except PermissionError as e:\n    print(type(e).__name__, e.status, e)',
    ].join('\n');
    const r = await run(a, forge);
    expect(r.stdout).toMatch(/^ScopeError 403 echo: token does not belong to session kb-/);
    expect(calls).toEqual([]);
    await run(b, 'import recur_kernel\nrecur_kernel.call("echo", {})');
    expect(calls.map((c) => c.sessionId)).toEqual([b]);
  });

  test('bootstrap adds only the agent API (rlm, agent_message, harness, final, goal, schedule, jobs, research, ledger, git, files) to the namespace, hidden from %who', async () => {
    const s = await start();
    // Joined: IPython pretty-prints a list this long over several lines.
    const r = await run(s, '",".join(sorted(k for k in globals() if not k.startswith("_") and k not in ("In", "Out", "get_ipython", "exit", "quit", "open")))');
    expect(r.result).toBe("'agent_message,files,final,git,goal,harness,jobs,ledger,research,rlm,schedule'");
    expect((await run(s, '%who')).stdout).toContain('Interactive namespace is empty');
  });

  test('rlm, agent_message and final each reach their handler with the right op and args', async () => {
    const s = await start();
    const code = [
      'h = rlm("summarise the log", name="summ", spec={"depth": 1})',
      'print(h.name, h.id, h.status(), h.result(), len(rlm.list()), rlm.delete("summ")["deleted"])',
      'print(agent_message.send("hello", to="parent")["id"], agent_message.inbox()[0]["text"], agent_message.recv(timeout=5)["text"])',
      'final({"answer": 42})',
    ].join('\n');
    const r = await run(s, code);
    expect(r.stdout).toBe('summ child-1 running child answer 1 summ\nm1 hi next\n');
    const ops = calls.map((c) => [c.op, c.args]);
    expect(ops).toEqual([
      ['rlm.spawn', { task: 'summarise the log', name: 'summ', model: null, spec: { depth: 1 }, budget_tokens: null, budget_usd: null, workspace: 'shared' }],
      ['rlm.status', { id: 'child-1' }],
      ['rlm.result', { id: 'child-1', wait: 30 }],
      ['rlm.result', { id: 'child-1', wait: 30 }],
      ['rlm.result', { id: 'child-1', wait: 30 }],
      ['rlm.list', {}],
      ['rlm.delete', { name: 'summ' }],
      ['agent_message.send', { to: 'parent', text: 'hello' }],
      ['agent_message.inbox', {}],
      ['agent_message.recv', { wait: expect.any(Number) }],
      ['final', { value: { answer: 42 } }],
    ]);
    expect(calls.every((c) => c.sessionId === s)).toBe(true);
  });

  test('await on an rlm handle works at the top level of a cell', async () => {
    const s = await start();
    const r = await run(s, 'h = rlm("t")\nawait h');
    expect(r.result).toBe("'child answer'");
  });

  test("a handler's ScopeError is raised in Python as a PermissionError with the host's message", async () => {
    const s = await start();
    const r = await client.execute(s, 'agent_message.send("psst", to="child:stranger")');
    expect(r.status).toBe('error');
    expect(r.error).toMatchObject({ ename: 'ScopeError', evalue: 'agent_message.send: stranger is not in your family' });
    const caught = await run(s, 'try:\n    agent_message.send("psst", to="child:stranger")\nexcept PermissionError as e:\n    print("caught", e.name)');
    expect(caught.stdout).toBe('caught ScopeError\n');
  });

  test('an unknown op is a LookupError in Python', async () => {
    const s = await start();
    const r = await run(s, 'import recur_kernel\ntry:\n    recur_kernel.call("nope")\nexcept LookupError as e:\n    print(e)');
    expect(r.stdout).toBe('nope: unknown op "nope"\n');
  });

  test('a call over the body limit is a ValueError in Python, and the next call still works', async () => {
    const s = await start();
    const code = 'import recur_kernel\ntry:\n    recur_kernel.call("echo", {"blob": "x" * 2_000_000})\nexcept ValueError as e:\n    print(e.status, e)\nprint(recur_kernel.call("echo", {"n": 2})["args"])';
    const r = await run(s, code);
    expect(r.stdout).toBe("413 echo: request body over 1048576 bytes\n{'n': 2}\n");
  });

  test('a revoked session token is refused', async () => {
    const s = await start();
    await bridge.revokeSession(s);
    const r = await run(s, 'try:\n    final(1)\nexcept PermissionError as e:\n    print(e.status, e)');
    expect(r.stdout).toBe('401 final: unknown or revoked session token\n');
  });
});
