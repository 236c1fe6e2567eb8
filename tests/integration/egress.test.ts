import { createServer, type Server } from 'node:http';
import { sandboxRecord } from '../../services/sandbox';
import { cliInProcess } from '../helpers/cli-in-process';
import { untilLogged } from '../helpers/poll-tree-log';
import { py, SessionHarness } from '../helpers/session-harness';


/**
 * Kernels have no route out; the worker's egress proxy decides each connection by the session's
 * network policy, or an operator beyond it, and logs it (real stack, sandboxed kernels, scripted
 * model). The "internet" here is a server on 127.0.0.2, a local address only a policy naming it reaches.
 */
describe('egress from a sandboxed kernel through the host proxy', () => {
  const h = new SessionHarness();
  let server: Server;
  let port: number;
  const withNet = (net: string) => ({ sandbox: { ...sandboxRecord(h.config.sandbox), net } });

  beforeAll(async () => {
    server = createServer((req, res) => res.end(`hello ${req.url}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.2', () => r()));
    port = (server.address() as { port: number }).port;
    await h.start();
  }, 120_000);
  afterAll(async () => {
    await h.stop();
    await new Promise<void>((r) => server.close(() => r()));
  });

  test('a destination the policy names is reached over plain HTTP and a CONNECT tunnel, each connection logged', async () => {
    const net = `allow:127.0.0.2:${port}`;
    const run = await h.run({
      root: [
        py(`import urllib.request\nprint(urllib.request.urlopen("http://127.0.0.2:${port}/plain", timeout=20).read().decode())`),
        py(`import http.client, os\nc = http.client.HTTPConnection("127.0.0.1", 3128, timeout=20)\nc.set_tunnel("127.0.0.2", ${port})\nc.request("GET", "/tunnel")\nprint(c.getresponse().read().decode(), os.environ["HTTPS_PROXY"])`),
        'reached',
      ],
    }, 'fetch', withNet(net));
    expect(run.result).toEqual({ status: 'completed', answer: 'reached' });
    const cells = run.of('CellExecuted');
    expect(cells.map((c) => c.outputs.trim())).toEqual(['hello /plain', 'hello /tunnel http://127.0.0.1:3128']);
    expect(run.of('SessionStarted')[0].sandbox?.net).toBe(net);
    expect(run.of('NetworkConnection')).toEqual([1, 2].map(() => ({
      type: 'NetworkConnection', host: '127.0.0.2', port, address: '127.0.0.2', decision: 'allowed', policy: net, approvalId: null, reason: '',
    })));
    // Logged before the cell that made it ended.
    const types = run.types();
    expect(types.indexOf('NetworkConnection')).toBeLessThan(types.indexOf('CellExecuted'));
  });

  test("a gate reaches the network only by the session's policy: a destination it names, through the proxy, logged; in CI mode anything else is refused at once", async () => {
    const net = `allow:127.0.0.2:${port}`;
    const input = h.input({ root: ['Done.'] }, 'a gate that fetches', withNet(net));
    // Bare, with no proxy, nothing is reachable from the gate's own network namespace.
    const fetch = (path: string) => `python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.2:${port}${path}', timeout=20).read().decode())"`;
    const bare = `python3 -c "import socket; socket.create_connection(('127.0.0.2', ${port}), timeout=5)" || echo NO ROUTE`;
    const other = `python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.2:1/', timeout=20)" 2>&1 | tail -1`;
    const run = await h.runInput({
      ...input, approvals: { ...input.approvals!, unattended: true },
      autonomous: { gates: [`${fetch('/gate')} && (${bare}) && (${other})`], gateTimeoutSeconds: 60, gateCwd: null },
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'Done.' });
    const [gate] = run.of('GateChecked');
    expect(gate.output).toContain('hello /gate');
    expect(gate.output).toContain('NO ROUTE');
    expect(gate.output).toMatch(/HTTP Error 403/);
    expect(run.of('NetworkConnection').map((c) => [c.port, c.decision])).toEqual([[port, 'allowed'], [1, 'refused']]);
    expect(run.of('ApprovalDecided')).toEqual([expect.objectContaining({ decision: 'refused', by: 'policy', reason: expect.stringContaining('in CI mode') })]);
  });

  test('under none, a connection waits for an operator; denied, the cell gets a 403 naming the reason', async () => {
    const input = h.input({
      root: [
        py(`import urllib.request, urllib.error\ntry:\n    urllib.request.urlopen("http://127.0.0.2:${port}/x", timeout=60)\nexcept urllib.error.HTTPError as e:\n    print(e.code, e.read().decode().strip())`),
        'denied',
      ],
    }, 'fetch without a policy', withNet('none'));
    await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [input] });
    const log = await untilLogged(h.config, input.sessionId, 'the egress approval request', (l) =>
      (l.sessions.get(input.sessionId) ?? []).some((e) => e.type === 'ApprovalRequested'));
    const requested = log.sessions.get(input.sessionId)!.find((e) => e.type === 'ApprovalRequested')!;
    expect(requested.event).toMatchObject({ kind: 'egress', detail: `127.0.0.2:${port}` });
    expect((await cliInProcess(['deny', requested.eventId, '--reason', 'stay offline', '--by', 'tester'])).code).toBe(0);
    const run = await h.read(input.sessionId, await h.result(input.sessionId));
    expect(run.result).toEqual({ status: 'completed', answer: 'denied' });
    expect(run.of('CellExecuted')[0].outputs.trim()).toBe('403 stay offline');
    expect(run.of('NetworkConnection')).toEqual([expect.objectContaining({ decision: 'denied', approvalId: requested.eventId, reason: 'stay offline', policy: 'none' })]);
  });

  test("under full, the stack's own services on loopback are refused outright and logged", async () => {
    const kafka = h.config.ports.kafka;
    const run = await h.run({
      root: [
        py(`import http.client\nc = http.client.HTTPConnection("127.0.0.1", 3128, timeout=20)\nc.set_tunnel("127.0.0.1", ${kafka})\ntry:\n    c.request("GET", "/")\nexcept OSError as e:\n    print("refused:", e)`),
        'refused',
      ],
    }, 'reach kafka', withNet('full'));
    expect(run.of('CellExecuted')[0].outputs).toContain('refused: Tunnel connection failed: 403');
    expect(run.of('NetworkConnection')).toEqual([expect.objectContaining({
      host: '127.0.0.1', port: kafka, decision: 'refused', reason: expect.stringContaining('local address'), policy: 'full',
    })]);
  });
});
