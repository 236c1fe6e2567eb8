import type { ApprovalRequested } from '../../schemas/generated/events';
import { decideApprovalUpdate, getApprovalsQuery, requestApprovalUpdate, useApprovalUpdate } from '../../workflows/approvals/approval-messages';
import { DEFAULT_APPROVAL_POLICY } from '../../workflows/approvals/approval-policy';
import { getStatusQuery } from '../../workflows/messages';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/* Approvals on the session workflow: requests, one use per yes, and spending past the threshold, where the next model call waits for an operator (each fake call is 2 tokens). */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'approval-workflow';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const withPolicy = (spendTokens: number): SessionInput => ({
  ...world.input('spend'), approvals: { ...DEFAULT_APPROVAL_POLICY, require: ['spend'], spendTokens, spendCostUsd: 0 },
});
const start = (input: SessionInput) => world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });

async function nthRequest(id: string, n: number): Promise<string> {
  for (;;) {
    const log = world.logs.get(id) ?? [];
    const requests = log.filter((r) => r.event.type === 'ApprovalRequested');
    if (requests.length >= n) return requests[n - 1].eventId;
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('past the token threshold the next model call waits; a yes lets it go on and moves the mark', async () => {
  world.script = { root: [{ code: [] }, { code: [] }, { code: [] }, { answer: 'done' }] };
  const input = withPolicy(4);
  const handle = await start(input);
  const id = await nthRequest(input.sessionId, 1);
  // Two calls (4 tokens) were made; the third waits, and nothing runs meanwhile.
  expect(world.types(input.sessionId).filter((t) => t === 'ModelCalled')).toHaveLength(2);
  expect(await handle.query(getStatusQuery)).toMatchObject({ phase: 'approval', openApprovals: 1 });
  expect(await handle.query(getApprovalsQuery)).toEqual([expect.objectContaining({ id, kind: 'spend', detail: expect.stringContaining('spent 4 tokens') })]);
  await handle.executeUpdate(decideApprovalUpdate, { args: [{ id, decision: 'approved', by: 'ops', reason: 'fine' }] });
  await expect(handle.result()).resolves.toEqual({ status: 'completed', answer: 'done' });
  // 8 tokens would be the next mark: the fourth call (at 6 tokens) needed no second yes.
  expect(world.types(input.sessionId).filter((t) => t.startsWith('Approval'))).toEqual(['ApprovalRequested', 'ApprovalDecided']);
  expect(world.types(input.sessionId).filter((t) => t === 'ModelCalled')).toHaveLength(4);
});

test('a no ends the session as a budget stop that names the decision; no further model call is made', async () => {
  world.script = { root: [{ code: [] }, { code: [] }, { answer: 'never' }] };
  const input = withPolicy(4);
  const handle = await start(input);
  const id = await nthRequest(input.sessionId, 1);
  await handle.executeUpdate(decideApprovalUpdate, { args: [{ id, decision: 'denied', by: 'ops', reason: 'over budget' }] });
  await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'budget', message: expect.stringContaining('was denied by ops: over budget') } });
  expect(world.types(input.sessionId).filter((t) => t === 'ModelCalled')).toHaveLength(2);
  expect(world.events(input.sessionId).at(-1)).toMatchObject({ type: 'SessionFailed', kind: 'budget' });
});

test("a sub-agent's reported spend counts toward its parent's tree", async () => {
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }, { op: 'take', waitMs: 20_000 }] }, { answer: 'root done' }],
    a: [{ code: [] }, { code: [] }, { answer: 'a done' }],
  };
  const input = withPolicy(6);
  const handle = await start(input);
  const id = await nthRequest(input.sessionId, 1);
  const [request] = world.events(input.sessionId).filter((e): e is ApprovalRequested => e.type === 'ApprovalRequested');
  // The root spent 2 tokens itself; its child's 6 make the tree's 8.
  expect(request.detail).toContain('spent 8 tokens');
  expect(world.types(`${input.sessionId}/a`)).not.toContain('ApprovalRequested');
  await handle.executeUpdate(decideApprovalUpdate, { args: [{ id, decision: 'approved', by: 'ops', reason: '' }] });
  expect(await handle.executeUpdate(decideApprovalUpdate, { args: [{ id, decision: 'denied', by: 'eve', reason: '' }] }))
    .toEqual({ ok: false, reason: `${id} was already approved by ops` });
  await expect(handle.result()).resolves.toEqual({ status: 'completed', answer: 'root done' });
});

test('a request is answered by the policy, a repeated key by the same approval, and one yes allows one action', async () => {
  world.script = { root: [{ code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'done' }] };
  const input = { ...world.input('gate'), approvals: { ...DEFAULT_APPROVAL_POLICY, require: ['harness-global'] } };
  const handle = await start(input);
  const ask = (kind: string, detail: string, key: string | null) => handle.executeUpdate(requestApprovalUpdate, { args: [{ kind, detail, key }] });
  expect(await ask('command', 'ls', null)).toEqual({ id: null, status: 'allowed', kind: 'command', detail: 'ls' });
  expect(await ask('command', 'sudo ls', 'k0')).toMatchObject({ status: 'refused', by: 'policy' });
  const pending = await ask('harness-global', 'create memory "m"', 'k1');
  expect(pending).toMatchObject({ status: 'pending', id: expect.stringMatching(new RegExp(`^${input.sessionId}/\\d+$`)) });
  expect(await ask('harness-global', 'create memory "m"', 'k1')).toEqual(pending);
  const use = (detail: string) => handle.executeUpdate(useApprovalUpdate, { args: [{ id: pending.id!, kind: 'harness-global', detail }] });
  expect(await use('create memory "m"')).toEqual({ ok: false, reason: `approval ${pending.id} is still waiting for an operator` });
  await handle.executeUpdate(decideApprovalUpdate, { args: [{ id: pending.id!, decision: 'approved', by: 'ops', reason: '' }] });
  expect(await use('create memory "other"')).toMatchObject({ ok: false, reason: expect.stringContaining('was for harness-global "create memory "m"", not for') });
  expect(await use('create memory "m"')).toMatchObject({ ok: true, answer: { status: 'approved', by: 'ops' } });
  expect(await use('create memory "m"')).toEqual({ ok: false, reason: `approval ${pending.id} was used already: one yes is one action` });
  await handle.signal('deliverMessage', { messageId: 'user#1', from: 'user', text: 'go' });
  await expect(handle.result()).resolves.toEqual({ status: 'completed', answer: 'done' });
  // Logged: the refused one with its decision, the asked one with the operator's; the allowed one not at all.
  expect(world.types(input.sessionId).filter((t) => t.startsWith('Approval'))).toEqual(['ApprovalRequested', 'ApprovalDecided', 'ApprovalRequested', 'ApprovalDecided']);
});
