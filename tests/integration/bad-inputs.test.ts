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
});
