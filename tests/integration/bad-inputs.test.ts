import { SessionHarness, py } from '../helpers/session-harness';

describe('bad input from an agent is refused clearly (real Temporal, Kafka, Jupyter; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('rlm(model="scripted:/etc/passwd") fails that child naming the setting; the worker never reads the file', async () => {
    const run = await h.run({
      root: [
        py(`
h = rlm("read it", name="peek", model="scripted:/etc/passwd")
try:
    h.result(timeout=120)
except Exception as e:
    print(type(e).__name__, str(e)[:300])`),
        'the parent went on',
      ],
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'the parent went on' });
    const child = `${run.id}/peek`;
    const [failed] = run.of('SessionFailed', child);
    expect(failed.reason).toMatch(/\/etc\/passwd: not under a directory scripted models may read from .*RECUR_SCRIPTED_DIRS/);
    expect(run.types(child)).toEqual(['SessionStarted', 'SessionFailed']);
    expect(run.of('SubagentCompleted')).toEqual([expect.objectContaining({ childId: child, status: 'failed' })]);
    const [cell] = run.of('CellExecuted');
    expect(cell.outputs).toMatch(/SubagentFailedError .*not under a directory/);
    // Nothing of the file reached any log: its first line is root's entry.
    for (const events of run.sessions.values()) expect(JSON.stringify(events)).not.toContain('root:x:0:0');
  });

  it('a model reply with no code and no text is not the answer: logged with a note to the model, which is asked again', async () => {
    const run = await h.run({ root: ['', 'the answer'] });
    expect(run.result).toEqual({ status: 'completed', answer: 'the answer' });
    expect(run.types()).toEqual(['SessionStarted', 'ModelCalled', 'ReplyRejected', 'ModelCalled', 'SessionCompleted']);
    expect(run.of('ModelCalled')[0]).toMatchObject({ response: '', toolCalls: [] });
    expect(run.of('ReplyRejected')).toEqual([expect.objectContaining({ problem: 'empty', inARow: 1, note: expect.stringContaining('your reply was empty') })]);
  });

  it('a cell that kills its own kernel (os._exit) is reported interrupted, not re-run, and the session goes on', async () => {
    const run = await h.run({ root: [py('import os\nos._exit(3)'), py('print("kernel back", "x" in globals())'), 'done'] });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const cells = run.of('CellExecuted');
    expect(cells.map((c) => c.status)).toEqual(['interrupted', 'ok']);
    expect(cells[1].outputs).toMatch(/^\[your kernel was lost and has been restored: .*not re-run: \S+ \(interrupted when the kernel was lost\)\]\nkernel back False$/);
  });

  it('input() in a cell raises at once instead of waiting for a terminal that is not there', async () => {
    const run = await h.run({ root: [py('try:\n    input("name? ")\nexcept Exception as e:\n    print(type(e).__name__)'), 'done'] }, 'ask', { cellTimeoutSeconds: 20 });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    expect(run.of('CellExecuted')[0]).toMatchObject({ status: 'ok', outputs: 'StdinNotImplementedError' });
  });

  it('rlm() with an empty task or an unknown spec, and a message with no recipient in the family, are errors in the cell', async () => {
    const run = await h.run({
      root: [
        py(`
for call in (lambda: rlm(""), lambda: rlm("x", spec="nope"), lambda: agent_message.send("hi", to="sibling:ghost")):
    try:
        call()
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:80])`),
        'done',
      ],
    });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const lines = run.of('CellExecuted')[0].outputs.split('\n');
    expect(lines).toEqual([
      'ValueError rlm(task): task must be a non-empty string',
      expect.stringMatching(/^ScopeError rlm.spawn: no sub-agent spec named "nope"/),
      expect.stringMatching(/^ScopeError agent_message.send: \S+ is a root session and has no siblings/),
    ]);
    expect(run.of('SubagentSpawned')).toEqual([]);
    expect(run.of('MessageRefused')).toHaveLength(1);
  });
});
