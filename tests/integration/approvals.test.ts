import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../config';
import type { StoredEvent } from '../../schemas';
import { kafkaClient } from '../../config/connections';
import { status } from '../../services/devstack';
import { readSessionLog } from '../../services/projector';
import { createApprovalGate } from '../../services/worker/approval-gate';
import { createHarnessClient } from '../../services/worker/harness-client';
import { cliInProcess } from '../helpers/cli-in-process';
import { logged, until, untilLogged } from '../helpers/poll-tree-log';
import { py, SessionHarness } from '../helpers/session-harness';
import { DEFAULT_APPROVAL_POLICY } from '../../workflows/approvals/approval-policy';

/** The refiner's scripted reply: one JSON object. */
const proposal = (edits: unknown[]) => JSON.stringify({ summary: 'test refine', evidence: [], edits });
const hex = () => randomBytes(3).toString('hex');

/** The CLI as an operator runs it (in-process, against the test stack's daemon): exit code and lines, its error's message last. */
async function cli(...args: string[]): Promise<{ code: number; out: string[] }> {
  const r = await cliInProcess(args);
  return { code: r.code, out: [...r.out, ...r.err, ...(r.message ? [r.message] : [])] };
}

/** A global-scope memory edit between two prints of a counter: a cell run twice, or an edit made twice, shows. */
const globalEditCell = (name: string) => py(`
n = globals().get("n", 0) + 1
print("before", n)
harness.memory.create("${name}", "approved note", scope="global")
print("after", n, harness.memory.read("${name}"))`);

describe('approvals (real Temporal, Kafka, Jupyter and daemon; scripted model)', () => {
  // The operator's refine mode is approve: a kernel asking for auto must not get it.
  const h = new SessionHarness({ RECUR_REFINE_APPLY: 'approve' });
  h.config.harness.globalScope = `test-${hex()}`;
  const stack = loadConfig();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  const start = async (agents: Record<string, string[]>, taskQueue = h.taskQueue, limits = {}) => {
    const input = h.input(agents, 'a task that needs an operator', limits);
    await h.client.workflow.start('agentSessionWorkflow', { taskQueue, workflowId: input.sessionId, args: [input] });
    return input.sessionId;
  };
  const approvalOf = async (id: string, nth = 1) => {
    const log = await untilLogged(stack, id, `approval request ${nth} of ${id}`, (l) =>
      (l.sessions.get(id) ?? []).filter((e) => e.type === 'ApprovalRequested').length >= nth);
    return log.sessions.get(id)!.filter((e) => e.type === 'ApprovalRequested')[nth - 1];
  };
  const scopeEdits = async (scopeId: string, name: string) => {
    const log = await readSessionLog({ kafka: kafkaClient(stack, 'reader', 'test-approvals'), topic: stack.kafka.topic, sessionId: scopeId, descendants: false });
    return log.events.flatMap((e) => (e.event.type === 'HarnessEdited' && e.event.name === name ? [e.event] : []));
  };
  const finish = async (id: string) => h.read(id, await h.result(id));

  it('a global harness edit from a kernel waits for `recur approve`, then applies once and the cell goes on', async () => {
    const name = `note_${hex()}`;
    const id = await start({ root: [globalEditCell(name), 'done'] });
    const requested = await approvalOf(id);
    const listed = await cli('approvals', '--json');
    expect(JSON.parse(listed.out[0]).approvals).toContainEqual(expect.objectContaining({
      id: requested.eventId, sessionId: id, kind: 'harness-global', detail: expect.stringContaining(`create memory "${name}" in the global harness`),
    }));
    expect(await cli('approve', requested.eventId, '--reason', 'looks fine', '--by', 'tester')).toMatchObject({ code: 0 });

    const run = await finish(id);
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const [cell] = run.of('CellExecuted');
    expect(cell.status).toBe('ok');
    expect(cell.outputs).toContain('before 1');
    expect(cell.outputs).toContain("after 1 {'text': 'approved note'}");
    expect(cell.outputs).toContain(`recur approve ${requested.eventId}`);
    const types = run.types();
    expect(types.slice(types.indexOf('CellRequested'), types.indexOf('CellExecuted') + 1)).toEqual([
      'CellRequested', 'ApprovalRequested', 'ApprovalDecided', 'HarnessEditRequested', 'CellExecuted',
    ]);
    const cellRequested = run.sessions.get(id)!.find((e) => e.type === 'CellRequested')!;
    expect(run.of('ApprovalRequested')).toEqual([{ type: 'ApprovalRequested', kind: 'harness-global', detail: expect.any(String), requestedBy: id, evidence: [cellRequested.eventId] }]);
    expect(run.of('ApprovalDecided')).toEqual([{
      type: 'ApprovalDecided', approvalId: requested.eventId, decision: 'approved', by: 'tester', reason: 'looks fine', decidedAt: expect.any(Number),
    }]);
    expect((await scopeEdits(`harness:${h.config.harness.globalScope}`, name)).map((e) => e.result)).toEqual(['applied']);
    expect(JSON.parse((await cli('approvals', '--json')).out[0]).approvals.map((a: { id: string }) => a.id)).not.toContain(requested.eventId);
  });

  it('with sensitive-path required, a changed CI workflow waits for `recur approve` before the next model call; a `recur deny` ends the session', async () => {
    const agents = {
      root: [py(`import os
os.makedirs(".github/workflows", exist_ok=True)
open(".github/workflows/ci.yml", "w").write("on: push\\n")
open("notes.txt", "w").write("plain\\n")`), 'changed the CI'],
    };
    const gated = async (unattended = false, ci = DEFAULT_APPROVAL_POLICY.ci) => {
      const input = h.input(agents, 'edit the CI');
      const policy = input.approvals!;
      const run = { ...input, approvals: { ...policy, require: [...policy.require, 'sensitive-path'], unattended, ci } };
      await h.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [run] });
      return input.sessionId;
    };
    const yes = await gated();
    const asked = await approvalOf(yes);
    expect(asked.event).toMatchObject({ kind: 'sensitive-path', detail: '1 change(s) to files that run outside Recur: .github/workflows/ci.yml added (.github/workflows/**)' });
    expect(await cli('approve', asked.eventId, '--by', 'tester')).toMatchObject({ code: 0 });
    const approved = await finish(yes);
    expect(approved.result).toEqual({ status: 'completed', answer: 'changed the CI' });
    const types = approved.types();
    // The scan that found it, then the request and its answer, and only then the next model call.
    expect(types.slice(types.indexOf('CellExecuted'))).toEqual(['CellExecuted', 'WorkspaceChanged', 'ApprovalRequested', 'ApprovalDecided', 'ModelCalled', 'WorkspaceChanged', 'SessionCompleted']);
    expect(approved.of('WorkspaceChanged')[0].files.map((f) => [f.path, f.sensitive])).toEqual([['.github/workflows/ci.yml', '.github/workflows/**'], ['notes.txt', null]]);

    const no = await gated();
    const again = await approvalOf(no);
    expect(await cli('deny', again.eventId, '--reason', 'not the CI', '--by', 'tester')).toMatchObject({ code: 0 });
    const denied = await finish(no);
    expect(denied.result).toMatchObject({ status: 'failed', kind: 'cancelled', reason: expect.stringMatching(/^changes to files that run outside Recur were denied by tester: not the CI \(\.github\/workflows\/ci\.yml added/) });
    // The model call that asked for the cell, and none after it.
    expect(denied.types().filter((t) => t === 'ModelCalled')).toHaveLength(1);

    // CI mode: nobody to ask, so the policy refuses it at once, logged, and nothing waited. By default the run ends there (exit 2)…
    const ci = await finish(await gated(true));
    expect(ci.result).toMatchObject({ status: 'failed', kind: 'approval_refused', reason: expect.stringContaining('approvals.ci.sensitive-path is "end"') });
    expect(ci.of('ApprovalDecided')).toEqual([expect.objectContaining({ decision: 'refused', by: 'policy', reason: expect.stringContaining('in CI mode nobody is there to give it') })]);
    expect(ci.types().filter((t) => t === 'ModelCalled')).toHaveLength(1);
    // …and a policy that denies it instead ends it as a refusal would: cancelled, naming the policy.
    const denyCi = await finish(await gated(true, { 'sensitive-path': 'deny' }));
    expect(denyCi.result).toMatchObject({ status: 'failed', kind: 'cancelled', reason: expect.stringContaining('were refused by policy') });
    expect(denyCi.of('ApprovalDecided')).toEqual([expect.objectContaining({ decision: 'refused', by: 'policy', reason: expect.stringContaining('the policy denies it') })]);
  });

  it('`recur deny --reason` reaches the cell as ApprovalRefusedError (a PermissionError) and nothing is edited', async () => {
    const name = `note_${hex()}`;
    const id = await start({
      root: [py(`
import recur_kernel
try:
    harness.memory.create("${name}", "never", scope="global")
except PermissionError as e:
    print(type(e).__name__, isinstance(e, recur_kernel.ApprovalRefusedError), e)`), 'denied'],
    });
    const requested = await approvalOf(id);
    expect(await cli('deny', requested.eventId, '--reason', 'not in production', '--by', 'tester')).toMatchObject({ code: 0 });
    const run = await finish(id);
    expect(run.result).toEqual({ status: 'completed', answer: 'denied' });
    expect(run.of('CellExecuted')[0].outputs).toMatch(new RegExp(`ApprovalRefusedError True harness.edit: harness-global denied by tester: not in production \\(approval ${requested.eventId};`));
    expect(run.of('ApprovalDecided')).toEqual([expect.objectContaining({ decision: 'denied', by: 'tester', reason: 'not in production' })]);
    expect(run.types()).not.toContain('HarnessEditRequested');
    expect(await scopeEdits(`harness:${h.config.harness.globalScope}`, name)).toEqual([]);
  });

  it('egress to a refused host is refused outright and logged; another host waits for an operator (the host-side gate)', async () => {
    const id = await start({ root: [py('print("heard:", agent_message.recv(timeout=300)["text"])'), 'over'] });
    await untilLogged(stack, id, 'the cell to start', (l) => logged(l, id, 'CellRequested'));
    const gate = createApprovalGate(h.client);
    const refused = await gate.await(id, { kind: 'egress', detail: '169.254.169.254:80' }, `egress-${hex()}`);
    expect(refused).toMatchObject({ status: 'refused', by: 'policy', reason: expect.stringContaining('refused outright by the approval policy (rule "169.254.169.254:*")') });
    // Refused outright: no operator is asked, nothing is left waiting.
    expect(JSON.parse((await cli('approvals', '--json')).out[0]).approvals.map((a: { id: string }) => a.id)).not.toContain(refused.id);

    const key = `egress-${hex()}`;
    const asked = gate.await(id, { kind: 'egress', detail: 'example.com:443' }, key);
    const requested = await approvalOf(id, 2);
    expect(await cli('approve', requested.eventId, '--by', 'tester')).toMatchObject({ code: 0 });
    expect(await asked).toMatchObject({ id: requested.eventId, status: 'approved', by: 'tester' });
    // Answered once: a second answer is refused.
    expect(await cli('deny', requested.eventId)).toEqual({ code: 1, out: [`${requested.eventId} was already approved by tester`] });
    // The same key is the same approval: asking again logs nothing new.
    expect(await gate.await(id, { kind: 'egress', detail: 'example.com:443' }, key)).toMatchObject({ id: requested.eventId, status: 'approved' });

    expect(await cli('send', id, 'go on')).toMatchObject({ code: 0 });
    const run = await finish(id);
    expect(run.result).toEqual({ status: 'completed', answer: 'over' });
    expect(run.of('ApprovalRequested').map((e) => [e.kind, e.detail])).toEqual([['egress', '169.254.169.254:80'], ['egress', 'example.com:443']]);
    expect(run.of('ApprovalDecided').map((e) => [e.decision, e.by])).toEqual([['refused', 'policy'], ['approved', 'tester']]);
  });

  it('harness.refine(apply="auto") from a kernel only proposes when the operator set approve mode', async () => {
    const run = await h.run({
      root: [py('r = harness.refine("note the task", apply="auto")\nprint([(o["name"], o["result"]) for o in r["proposed"]], r["applied"], harness.memory.read("auto_note"))'), 'refined'],
      refiner: [proposal([{ action: 'create', kind: 'memory', name: 'auto_note', value: { text: 'x' } }])],
    });
    expect(run.of('CellExecuted')[0].outputs).toBe("[('auto_note', 'proposed')] [] None");
    const edits = await scopeEdits(createHarnessClient(h.client, { taskQueue: h.taskQueue, globalScope: h.config.harness.globalScope }).scopeId(run.id, 'session'), 'auto_note');
    expect(edits.map((e) => e.result)).toEqual(['proposed']);
  });

  it('a skill cannot take the name of a standard-library or installed module: refused at definition and logged', async () => {
    const run = await h.run({
      root: [py(`
for name in ("json", "os", "recur_kernel", "ipykernel"):
    try:
        harness.skills.create(name, "x = 1", "a shadow")
        print(name, "created")
    except ValueError as e:
        print(name, type(e).__name__, "standard-library or installed Python module" in str(e))
import json
print(json.dumps([1]))`), 'refused'],
    });
    expect(run.of('CellExecuted')[0].outputs.split('\n')).toEqual([
      'json HarnessEditError True', 'os HarnessEditError True', 'recur_kernel HarnessEditError True', 'ipykernel HarnessEditError True', '[1]',
    ]);
    const scopeId = createHarnessClient(h.client, { taskQueue: h.taskQueue, globalScope: h.config.harness.globalScope }).scopeId(run.id, 'session');
    expect((await scopeEdits(scopeId, 'json')).map((e) => [e.result, e.error])).toEqual([['refused', expect.stringContaining('"json" is the name of')]]);
  });

  it('a worker SIGKILLed while a cell waits for approval changes nothing: approved after the restart, the cell completes once', async () => {
    const name = `note_${hex()}`;
    const id = await start({ root: [globalEditCell(name), 'done'] }, stack.temporal.taskQueue, { cellTimeoutSeconds: 600 });
    const requested = await approvalOf(id);
    const pid = await workerPid();
    expect(pid).not.toBeNull();
    process.kill(pid!, 'SIGKILL');
    const next = await until('the supervised worker to come back', async () => {
      const p = await workerPid();
      return p !== null && p !== pid ? p : undefined;
    });
    expect(next).not.toBe(pid);
    // The approval is still open once a worker serves the session again: its workflow answers the daemon's query.
    await until('the restarted worker to list the open approval', async () => {
      const open = JSON.parse((await cli('approvals', '--json')).out[0]).approvals as Array<{ id: string }>;
      return open.some((a) => a.id === requested.eventId) ? true : undefined;
    });
    expect(await cli('approve', requested.eventId, '--by', 'tester')).toEqual({ code: 0, out: [expect.stringContaining('approved by tester')] });

    const run = await finish(id);
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const cells = run.of('CellExecuted');
    expect(cells.map((c) => c.status)).toEqual(['ok']);
    expect(cells[0].outputs).toContain('before 1');
    expect(cells[0].outputs).toContain("after 1 {'text': 'approved note'}");
    const count = (type: StoredEvent['type']) => run.types().filter((t) => t === type).length;
    expect([count('SessionStarted'), count('CellRequested'), count('ApprovalRequested'), count('ApprovalDecided'), count('HarnessEditRequested')]).toEqual([1, 1, 1, 1, 1]);
    expect((await scopeEdits(`harness:${stack.harness.globalScope}`, name)).map((e) => e.result)).toEqual(['applied']);
  }, 600_000);

  async function workerPid(): Promise<number | null> {
    const w = (await status(stack)).find((s) => s.name === 'worker');
    return w?.healthy && w.pid ? w.pid : null;
  }
});
