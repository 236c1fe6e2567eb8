import { decideKernelAdmission } from '../../activities/kernel/decide-kernel-admission';

const k = (sessionId: string, lastActivityMs: number) => ({ sessionId, lastActivityMs });

describe('decideKernelAdmission', () => {
  test('below the cap a new kernel starts', () => {
    expect(decideKernelAdmission('r/c', [k('r', 5), k('r/a', 1)], 3)).toEqual({ kind: 'admit' });
    expect(decideKernelAdmission('r', [], 1)).toEqual({ kind: 'admit' });
  });

  test('a session whose kernel is already loaded is admitted even on a full (or over-full) host', () => {
    expect(decideKernelAdmission('r/a', [k('r', 5), k('r/a', 1), k('r/b', 2)], 2)).toEqual({ kind: 'admit' });
  });

  test('at the cap, one kernel must go, candidates least recently active first', () => {
    expect(decideKernelAdmission('r/d', [k('r', 50), k('r/a', 30), k('r/b', 10), k('r/c', 20)], 4)).toEqual({
      kind: 'free', count: 1, candidates: ['r/b', 'r/c', 'r/a', 'r'],
    });
  });

  test('over the cap (the cap was lowered), enough go to leave room for one; equal activity is ordered by id', () => {
    expect(decideKernelAdmission('x', [k('b', 1), k('a', 1), k('c', 0)], 2)).toEqual({ kind: 'free', count: 2, candidates: ['c', 'a', 'b'] });
  });
});
