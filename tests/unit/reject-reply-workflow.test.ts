import type { ReplyRejected, SessionFailed } from '../../schemas/generated/events';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld, runToEnd } from '../helpers/fake-session-world';

/* Replies that are neither code nor an answer, through the real workflow: a note and another turn, bounded. */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'reject-reply';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const run = (input: SessionInput) => runToEnd(world, TQ, input);

const rejections = (id: string) => world.events(id).filter((e): e is ReplyRejected => e.type === 'ReplyRejected');

test('an empty reply is not the answer: it is logged with a note, the model is asked again, and its next answer ends the session', async () => {
  world.script = { root: [{ text: '' }, { answer: '391' }] };
  const input = world.input('t');
  expect(await run(input)).toBe('completed');
  expect(world.types(input.sessionId)).toEqual(expect.arrayContaining(['ModelCalled', 'ReplyRejected', 'ModelCalled', 'SessionCompleted']));
  const types = world.types(input.sessionId);
  expect(types[types.indexOf('ModelCalled') + 1]).toBe('ReplyRejected');
  expect(rejections(input.sessionId)).toEqual([{ type: 'ReplyRejected', problem: 'empty', inARow: 1, note: expect.stringContaining('your reply was empty') }]);
  expect(world.events(input.sessionId).find((e) => e.type === 'SessionCompleted')).toMatchObject({ answer: '391' });
});

test('a reply cut off at the token limit three times in a row fails the session (model_error) naming it, instead of looping', async () => {
  const cut = { text: 'Here is the loop:\n```python\nfor i in range(10):\n    print(', stopReason: 'max_tokens' as const };
  world.script = { root: [cut, cut, cut, { answer: 'never reached' }] };
  const input = world.input('t');
  const message = await run(input);
  expect(message).toContain('cut_off');
  expect(rejections(input.sessionId).map((r) => [r.problem, r.inARow])).toEqual([['cut_off', 1], ['cut_off', 2], ['cut_off', 3]]);
  expect(rejections(input.sessionId)[0].note).toContain('the unclosed block was not run');
  const failed = world.events(input.sessionId).filter((e): e is SessionFailed => e.type === 'SessionFailed');
  expect(failed).toEqual([expect.objectContaining({ kind: 'model_error', reason: expect.stringContaining('last 3 replies could not be used') })]);
  expect(world.types(input.sessionId).filter((t) => t === 'ModelCalled')).toHaveLength(3);
});

test('a used reply starts the count again; a refusal repeated after its note ends the session', async () => {
  const refusal = { text: "I'm sorry, but I can't help with that." };
  world.script = { root: [{ text: '' }, { code: [{ op: 'take' }] }, refusal, refusal, { answer: 'never reached' }] };
  const input = world.input('t');
  expect(await run(input)).toContain('refusal');
  expect(rejections(input.sessionId).map((r) => [r.problem, r.inARow])).toEqual([['empty', 1], ['refusal', 1], ['refusal', 2]]);
  expect(rejections(input.sessionId)[1].note).toContain('If the task cannot be done, give a final answer that says why');
});
