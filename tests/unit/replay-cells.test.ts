import type { ExecuteResult } from '../../activities/kernel';
import { BlobStoreError } from '../../activities/blob-store';
import { KernelLostError } from '../../errors';
import type { RecurEventInput, StoredEvent } from '../../schemas';
import { formatCellReport } from '../../services/cli/commands/replay';
import { compareCell, normaliseOutput, planCellReplay } from '../../log/plan-cell-replay';
import { replayCells, type ReplayCellsDeps } from '../../services/projector/replay-cells';
import { chain, ev } from '../helpers/replay-tree-fixture';

const CODE_BLOB = { sha256: 'c'.repeat(64), size: 30 };
const OUT_BLOB = { sha256: 'd'.repeat(64), size: 40 };
const HOST_ERROR = 'rlm: this kernel is not connected to a Recur host';

const result = (over: Partial<ExecuteResult>): ExecuteResult => ({
  status: 'ok', stdout: '', stderr: '', result: null, displays: [], error: null, truncated: false, durationMs: 1, executionCount: 1, ...over,
});

/** Root with four cells (one with its source and output in blobs, one interrupted), and a child with one host call. */
function tree(): StoredEvent[] {
  const cells: Array<[number, RecurEventInput]> = [
    [1, ev.started('root', 0)],
    [2, ev.request('x = 6*7\nprint(x)')], [3, ev.executed('r/1', 'x = 6*7\nprint(x)', '42   \n\n')],
    [4, { type: 'CellRequested', cellId: 'c', code: 'print("a"*…', codeBlob: CODE_BLOB }],
    [5, { type: 'CellExecuted', requestId: 'r/3', code: 'print("a"*…', status: 'ok', outputs: 'aaa… [output truncated]', outputsBlob: OUT_BLOB, durationMs: 3 }],
    [6, ev.request('import os; os._exit(1)')], [7, ev.executed('r/5', 'import os; os._exit(1)', '[lost]', 'interrupted')],
    [8, ev.request('print(x + 1)')], [9, ev.executed('r/7', 'print(x + 1)', '43')],
    [10, ev.request('1/0')], [11, { ...ev.executed('r/9', '1/0', ''), status: 'error', errorName: 'ZeroDivisionError', errorValue: 'division by zero' } as RecurEventInput],
  ];
  const child = chain('r/k', [[1, ev.started('k', 1, 'r')], [2, ev.request('h = rlm("sub")')], [3, ev.executed('r/k/1', 'h = rlm("sub")', 'spawned')]]);
  return [...chain('r', cells).records, ...child.records];
}

function fakes(outputs: Record<string, ExecuteResult | Error>, blobs: Record<string, string>) {
  const calls: string[] = [];
  const deps: ReplayCellsDeps = {
    kernels: {
      start: async (s) => {
        calls.push(`start ${s}`);
        return { sessionId: s, kernelId: 'k', fresh: true, restarted: false };
      },
      execute: async (s, code) => {
        calls.push(`execute ${s} ${code}`);
        const out = outputs[code];
        if (!out) throw new Error(`unexpected cell ${code}`);
        if (out instanceof Error) throw out;
        return out;
      },
      shutdown: async (s) => void calls.push(`shutdown ${s}`),
    },
    blobs: {
      get: async (sha) => {
        if (!(sha in blobs)) throw new BlobStoreError(sha, 'missing');
        return Buffer.from(blobs[sha]);
      },
    },
  };
  return { deps, calls };
}

const LONG = 'print("a"*3000)  # the full source';
const deterministic = {
  'x = 6*7\nprint(x)': result({ stdout: '42\n' }),
  [LONG]: result({ stdout: `${'a'.repeat(3000)}\n` }),
  'print(x + 1)': result({ stdout: '43\n' }),
  '1/0': result({ status: 'error', error: { ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: '...' } }),
  'h = rlm("sub")': result({ status: 'error', error: { ename: 'RuntimeError', evalue: HOST_ERROR, traceback: '...' } }),
};

describe('replay --verify of logged cells', () => {
  test('plans each executed cell with the code its request asked for and the session cell timeout', () => {
    const plan = planCellReplay(tree().filter((e) => e.sessionId === 'r'));
    expect(plan.map((c) => [c.eventId, c.requestId, c.code, c.codeBlob, c.skip])).toEqual([
      ['r/2', 'r/1', 'x = 6*7\nprint(x)', null, null],
      ['r/4', 'r/3', 'print("a"*…', CODE_BLOB, null],
      ['r/6', 'r/5', 'import os; os._exit(1)', null, 'interrupted in the logged run; not re-run'],
      ['r/8', 'r/7', 'print(x + 1)', null, null],
      ['r/10', 'r/9', '1/0', null, null],
    ]);
    expect(plan[0].timeoutSeconds).toBe(30);
  });

  test('trailing whitespace and blank lines do not count; anything else does', () => {
    expect(normaliseOutput('42   \n\n\n')).toBe('42');
    expect(normaliseOutput('a \nb\t\n')).toBe('a\nb');
    const logged = { status: 'ok' as const, output: '42', errorName: null, errorValue: null };
    expect(compareCell(logged, { ...logged, output: '42 \n' })).toEqual({ kind: 'same' });
    expect(compareCell(logged, { ...logged, output: ' 42' })).toEqual({ kind: 'differs', detail: 'output line 1: logged "42", replay " 42"' });
    expect(compareCell(logged, { ...logged, status: 'error', errorName: 'E' })).toMatchObject({ kind: 'differs', detail: 'status: logged ok, replay error' });
    expect(compareCell({ ...logged, output: '[note: your kernel was restarted before this cell; variables from earlier cells are gone]\n42' }, logged))
      .toEqual({ kind: 'same' });
  });

  test('a deterministic tree replays the same, runs blob sources, compares blob outputs, skips interrupted cells and names host calls', async () => {
    const { deps, calls } = fakes(deterministic, { [CODE_BLOB.sha256]: LONG, [OUT_BLOB.sha256]: `${'a'.repeat(3000)}\n` });
    const seen: string[] = [];
    const reports = await replayCells({ ...deps, onReport: (r) => seen.push(r.eventId) }, tree());
    expect(reports.map((r) => [r.eventId, r.verdict])).toEqual([
      ['r/2', 'same'], ['r/4', 'same'], ['r/6', 'skipped'], ['r/8', 'same'], ['r/10', 'same'], ['r/k/2', 'host-call'],
    ]);
    expect(seen).toEqual(reports.map((r) => r.eventId));
    expect(reports[5].detail).toBe('not replayable (host call)');
    const executed = calls.filter((c) => c.startsWith('execute')).map((c) => c.split(' ')[1]);
    expect(new Set(executed).size).toBe(2); // one kernel per session
    expect(executed[0]).toMatch(/^replay-[0-9a-f-]{36}\/r$/);
    expect(calls.some((c) => c.includes('os._exit'))).toBe(false);
    expect(calls.filter((c) => c.startsWith('shutdown')).sort()).toEqual([...new Set(executed)].map((s) => `shutdown ${s}`).sort());
    expect(formatCellReport(reports[0])).toBe('same       r #2  "x = 6*7 …"');
  });

  test('a wrong logged output is reported on that cell only, with the first differing line', async () => {
    const events = tree().filter((e) => e.sessionId === 'r');
    const { deps } = fakes({ ...deterministic, 'print(x + 1)': result({ stdout: '44\n' }) }, { [CODE_BLOB.sha256]: LONG, [OUT_BLOB.sha256]: 'a'.repeat(3000) });
    const reports = await replayCells(deps, events);
    expect(reports.filter((r) => r.verdict !== 'same' && r.verdict !== 'skipped')).toEqual([
      expect.objectContaining({ eventId: 'r/8', verdict: 'differs', detail: 'output line 1: logged "43", replay "44"' }),
    ]);
    expect(formatCellReport(reports[3])).toBe('DIFFERS    r #8  "print(x + 1)"  output line 1: logged "43", replay "44"');
  });

  test('a missing blob leaves a cell unchecked, a lost replay kernel differs, and kernels are shut down after a failure', async () => {
    const { deps } = fakes({ ...deterministic, 'print(x + 1)': new KernelLostError('replay', 'k', 'kernel died') }, {});
    const reports = await replayCells(deps, tree().filter((e) => e.sessionId === 'r'));
    expect(reports[1]).toMatchObject({ eventId: 'r/4', verdict: 'unchecked' });
    expect(reports[1].detail).toContain('missing');
    expect(reports[3]).toMatchObject({ eventId: 'r/8', verdict: 'differs', detail: 'status: logged ok, replay interrupted' });

    const broken = fakes({ ...deterministic, '1/0': new Error('jupyter went away') }, {});
    await expect(replayCells(broken.deps, tree())).rejects.toThrow('jupyter went away');
    expect(broken.calls.filter((c) => c.startsWith('shutdown'))).toHaveLength(1);
  });
});
