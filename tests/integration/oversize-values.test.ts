import { MAX_EVENT_BYTES, encodeEvent, type StoredEvent } from '../../schemas';
import { FIELD_LIMITS } from '../../schemas/field-limits';
import { createLocalBlobStore } from '../../activities/blob-store';
import { stackPaths } from '../../config/home-paths';
import { SessionHarness, py, type SessionRun } from '../helpers/session-harness';

const N = 600_000;

/** The bytes the event takes in Kafka: decoding checked it is canonical, so re-encoding gives them back. */
const bytesOf = (e: StoredEvent) => encodeEvent({ ...e, event: e.event }).value.length;

describe('oversize values (real Temporal, Kafka, Jupyter; scripted model)', () => {
  const h = new SessionHarness();
  const blobs = createLocalBlobStore(stackPaths(h.config).blobs);
  const blobText = async (ref: { sha256: string } | null | undefined) => (await blobs.get(ref!.sha256)).toString('utf8');
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  /** Every event of every session in the tree fits the encoder's limit (read() has verified the chain). */
  const expectAllFit = (run: SessionRun) => {
    const sizes = [...run.sessions.values()].flat().map(bytesOf);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_EVENT_BYTES);
  };

  it('final() of 600 KB completes the session with a preview and the whole answer in the blob store', async () => {
    const run = await h.run({ root: [py(`final("y" * ${N})`)] });
    expect(run.result.status).toBe('completed');
    const [done] = run.of('SessionCompleted');
    expect(done.answer.length).toBe(FIELD_LIMITS.SessionCompleted.answer);
    expect(await blobText(done.answerBlob)).toBe('y'.repeat(N));
    expectAllFit(run);
    // The whole answer never rode an update, an activity's input or the result: the history holds previews only.
    const history = await h.client.workflow.getHandle(run.id).fetchHistory();
    const bytes = Buffer.byteLength(JSON.stringify(history));
    expect(bytes).toBeLessThan(N);
  });

  it('a 600 KB rlm task, messages both ways and a child answer reach their readers whole', async () => {
    const run = await h.run({
      root: [
        py(`
c = rlm("t" * ${N}, name="kid")
m = agent_message.recv(timeout=60)
agent_message.send("p" * ${N}, to="child:kid")
answer = c.result(timeout=120)
print(answer == "k" * ${N}, m["text"] == "m" * ${N})`),
        'done',
      ],
      kid: [py(`
agent_message.send("m" * ${N}, to="parent")
m = agent_message.recv(timeout=60)
print(m["text"] == "p" * ${N})
final("k" * ${N})`)],
    });
    expect(run.result).toMatchObject({ status: 'completed', answer: 'done' });
    const kid = `${run.id}/kid`;
    expect(run.of('CellExecuted').map((c) => c.outputs)).toEqual(['True True']);
    expect(run.of('CellExecuted', kid).map((c) => c.outputs)).toEqual(['True']);
    const [spawned] = run.of('SubagentSpawned');
    const [started] = run.of('SessionStarted', kid);
    expect(await blobText(spawned.taskBlob)).toBe('t'.repeat(N));
    expect(started.taskBlob).toEqual(spawned.taskBlob);
    const [toKid] = run.of('MessageSent');
    const [toParent] = run.of('MessageSent', kid);
    expect(await blobText(toKid.textBlob)).toBe('p'.repeat(N));
    expect(await blobText(toParent.textBlob)).toBe('m'.repeat(N));
    const delivered = run.of('MessageDelivered').find((m) => m.messageId === toParent.messageId)!;
    expect(delivered.text).toContain(`[cut: the whole is blob ${toParent.textBlob!.sha256}`);
    const [childDone] = run.of('SubagentCompleted');
    expect(await blobText(childDone.answerBlob)).toBe('k'.repeat(N));
    expectAllFit(run);
  });

  it('600 KB goal evidence completes the goal, its preview naming the blob with the whole', async () => {
    const run = await h.run({ root: [py(`goal.create("write a lot")\ngoal.complete("e" * ${N})`), 'done'] });
    expect(run.result.status).toBe('completed');
    const completed = run.of('GoalChanged').find((g) => g.change === 'completed')!;
    const sha = /blob ([0-9a-f]{64})/.exec(completed.reason!)![1];
    expect(completed.reason!.length).toBeLessThanOrEqual(FIELD_LIMITS.GoalChanged.reason);
    expect(await blobText({ sha256: sha })).toBe('e'.repeat(N));
    expectAllFit(run);
  });

  it('an exception with a 600 KB message is reported to the model, the message whole in the blob store', async () => {
    const run = await h.run({ root: [py(`raise ValueError("v" * ${N})`), 'done'] });
    expect(run.result).toMatchObject({ status: 'completed', answer: 'done' });
    const [cell] = run.of('CellExecuted');
    expect(cell).toMatchObject({ status: 'error', errorName: 'ValueError' });
    const sha = /blob ([0-9a-f]{64})/.exec(cell.errorValue!)![1];
    expect(await blobText({ sha256: sha })).toBe('v'.repeat(N));
    expectAllFit(run);
  });

  it('600 KB of model-written code runs whole; the log keeps previews and the code blob', async () => {
    const code = `s = "${'c'.repeat(N)}"\nprint(len(s))`;
    const run = await h.run({ root: [py(code), 'done'] });
    expect(run.result).toMatchObject({ status: 'completed', answer: 'done' });
    const [requested] = run.of('CellRequested');
    expect(await blobText(requested.codeBlob)).toBe(code);
    expect(requested.code.length).toBe(FIELD_LIMITS.CellRequested.code);
    const [cell] = run.of('CellExecuted');
    expect(cell).toMatchObject({ status: 'ok', outputs: String(N) });
    const [called] = run.of('ModelCalled');
    expect(called.responseBlob).not.toBeNull();
    expectAllFit(run);
  });

  it('small values past their hard limit raise LimitExceededError in the cell, naming the limit', async () => {
    const run = await h.run({
      root: [py(`
for call in (lambda: agent_message.send("hi", to="x" * ${N}), lambda: rlm("task", model="m" * ${N}), lambda: goal.create("o" * ${N}), lambda: schedule.add("every 5m", "i" * ${N}), lambda: final("z" * 2_000_000)):
    try:
        call()
    except ValueError as e:
        print(type(e).__name__, str(e))`), 'done'],
    });
    expect(run.result).toMatchObject({ status: 'completed', answer: 'done' });
    expect(run.of('CellExecuted')[0].outputs.split('\n')).toEqual([
      `LimitExceededError agent_message.send: agent_message.send(to=...) is ${N} characters, over the 1024-character limit`,
      `LimitExceededError rlm.spawn: rlm(model=...) is ${N} characters, over the 256-character limit`,
      `LimitExceededError goal.create: goal.create(objective) is ${N} characters, over the 4000-character limit`,
      `LimitExceededError schedule.add: schedule.add(instruction) is ${N} characters, over the 4000-character limit`,
      'PayloadTooLargeError final: request body over 1048576 bytes',
    ]);
    expectAllFit(run);
  });
});
