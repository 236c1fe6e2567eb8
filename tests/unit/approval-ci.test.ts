import type { SessionFailed } from '../../schemas/generated/events';
import { decideApprovalUpdate, requestApprovalUpdate, type ApprovalAnswer } from '../../workflows/approvals/approval-messages';
import { DEFAULT_APPROVAL_POLICY, type ApprovalPolicy } from '../../workflows/approvals/approval-policy';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/* CI mode on the session workflow: nobody answers, so each kind the policy requires is denied (the run goes on), ends the run, or waits a bounded time, as approvals.ci says. */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'approval-ci';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const unattended = (over: Partial<ApprovalPolicy>): ApprovalPolicy => ({ ...DEFAULT_APPROVAL_POLICY, unattended: true, ...over });
const start = (input: SessionInput) => world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
const modelCalls = (id: string) => world.types(id).filter((t) => t === 'ModelCalled').length;
const decisions = (id: string) => world.events(id).filter((e) => e.type === 'ApprovalDecided');

/** Requests come from a running cell's host ops: none before the session's first cell. */
async function cellRunning(id: string): Promise<void> {
  for (let i = 0; i < 200 && !world.types(id).includes('CellRequested'); i++) await new Promise((r) => setTimeout(r, 100));
  expect(world.types(id)).toContain('CellRequested');
}

/** A root whose first cell waits for a message: what a cell asking for an approval looks like from the workflow. */
async function waitingRoot(approvals: ApprovalPolicy) {
  world.script = { root: [{ code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'done' }] };
  const input = { ...world.input('ci'), approvals };
  const handle = await start(input);
  await cellRunning(input.sessionId);
  const ask = (kind: string, detail: string): Promise<ApprovalAnswer> => handle.executeUpdate(requestApprovalUpdate, { args: [{ kind, detail, key: null }] });
  const release = () => handle.signal('deliverMessage', { messageId: 'user#1', from: 'user', text: 'go' });
  return { input, handle, ask, release };
}

describe.each([
  ['harness-global', 'create memory "m"'],
  ['egress', 'example.com:443'],
  ['command', 'make deploy'],
])('a %s request in CI mode', (kind, detail) => {
  const require = [kind];

  test('denied: the requester hears the refusal at once, logged by policy, and the run goes on to its answer', async () => {
    const { input, handle, ask, release } = await waitingRoot(unattended({ require, ci: { [kind]: 'deny' } }));
    const answer = await ask(kind, detail);
    expect(answer).toMatchObject({ status: 'refused', by: 'policy', reason: expect.stringContaining('denies it and the run goes on') });
    await release();
    await expect(handle.result()).resolves.toEqual({ status: 'completed', answer: 'done' });
    expect(decisions(input.sessionId)).toEqual([expect.objectContaining({ approvalId: answer.id, decision: 'refused', by: 'policy' })]);
  });

  test('ended: refused at once, and the session fails as approval_refused before its next model call', async () => {
    const { input, handle, ask, release } = await waitingRoot(unattended({ require, ci: { [kind]: 'end' } }));
    const answer = await ask(kind, detail);
    expect(answer).toMatchObject({ status: 'refused', by: 'policy', reason: expect.stringContaining(`approvals.ci.${kind} is "end"`) });
    await release();
    await expect(handle.result()).rejects.toMatchObject({ cause: { type: 'approval_refused', message: expect.stringContaining(`(approval ${answer.id})`) } });
    expect(modelCalls(input.sessionId)).toBe(1);
    expect(world.events(input.sessionId).at(-1)).toMatchObject({ type: 'SessionFailed', kind: 'approval_refused' });
    expect(decisions(input.sessionId)).toEqual([expect.objectContaining({ decision: 'refused', by: 'policy' })]);
  });
});

describe('spending past the threshold in CI mode', () => {
  const spending = (ci: ApprovalPolicy['ci']): SessionInput => {
    world.script = { root: [{ code: [] }, { code: [] }, { answer: 'never' }] };
    return { ...world.input('spend'), approvals: unattended({ require: ['spend'], spendTokens: 4, spendCostUsd: 0, ci }) };
  };

  test('denied: a budget stop, as an operator\'s no would be', async () => {
    const input = spending({ spend: 'deny' });
    await expect((await start(input)).result()).rejects.toMatchObject({ cause: { type: 'budget', message: expect.stringContaining('was refused by policy') } });
    expect(modelCalls(input.sessionId)).toBe(2);
  });

  test('ended (the default): approval_refused, naming the policy', async () => {
    const input = spending(DEFAULT_APPROVAL_POLICY.ci);
    await expect((await start(input)).result()).rejects.toMatchObject({ cause: { type: 'approval_refused', message: expect.stringContaining('approvals.ci.spend is "end"') } });
    expect(modelCalls(input.sessionId)).toBe(2);
    expect((world.events(input.sessionId).at(-1) as SessionFailed).kind).toBe('approval_refused');
  });
});

describe('a kind the policy lets wait in CI mode', () => {
  const waiting = unattended({ require: ['egress'], ci: { egress: 'wait' }, ciWaitSeconds: 2 });

  test('an operator who answers within the wait decides it', async () => {
    const { input, handle, ask, release } = await waitingRoot(waiting);
    const asked = await ask('egress', 'example.com:443');
    expect(asked).toMatchObject({ status: 'pending' });
    await handle.executeUpdate(decideApprovalUpdate, { args: [{ id: asked.id!, decision: 'approved', by: 'ops', reason: 'ok' }] });
    await release();
    await expect(handle.result()).resolves.toEqual({ status: 'completed', answer: 'done' });
    expect(decisions(input.sessionId)).toEqual([expect.objectContaining({ decision: 'approved', by: 'ops' })]);
  });

  test('unanswered, it is refused by policy when the wait runs out, and the run goes on', async () => {
    const { input, handle, ask, release } = await waitingRoot(waiting);
    const asked = await ask('egress', 'example.com:443');
    expect(asked).toMatchObject({ status: 'pending' });
    for (let i = 0; i < 100 && decisions(input.sessionId).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(decisions(input.sessionId)).toEqual([expect.objectContaining({
      approvalId: asked.id, decision: 'refused', by: 'policy', reason: 'nobody answered in CI mode within 2 s (approvals.ciWaitSeconds)',
    })]);
    await release();
    await expect(handle.result()).resolves.toEqual({ status: 'completed', answer: 'done' });
  });
});

test('a sub-agent the policy ends ends its parent too: the run is over', async () => {
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }, { op: 'take', waitMs: 20_000 }] }, { answer: 'root done' }],
    a: [{ code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'a done' }],
  };
  const input = { ...world.input('tree'), approvals: unattended({ require: ['egress'], ci: { egress: 'end' } }) };
  const root = await start(input);
  const childId = `${input.sessionId}/a`;
  await cellRunning(childId);
  const child = world.client.workflow.getHandle(childId);
  expect(await child.executeUpdate(requestApprovalUpdate, { args: [{ kind: 'egress', detail: 'example.com:443', key: null }] })).toMatchObject({ status: 'refused' });
  await child.signal('deliverMessage', { messageId: 'user#1', from: 'user', text: 'go' });
  await expect(root.result()).rejects.toMatchObject({ cause: { type: 'approval_refused', message: expect.stringContaining('sub-agent a was ended by the approval policy') } });
  expect(world.events(childId).at(-1)).toMatchObject({ type: 'SessionFailed', kind: 'approval_refused' });
});
