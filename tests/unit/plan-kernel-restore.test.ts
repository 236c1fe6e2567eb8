import { planKernelRestore } from '../../activities/plan-kernel-restore';
import type { RecurEventInput } from '../../schemas';
import { chain, ev } from '../helpers/replay-tree-fixture';

test('a cell the host refused a kernel for never ran: a restore does not re-run it or take it for the interrupted cell', () => {
  const refused: RecurEventInput = {
    ...ev.executed('r/1', 'x = 1', 'LimitError: loaded-kernels-per-host limit ...; the cell did not run', 'interrupted'),
    errorName: 'LimitError', errorValue: 'loaded-kernels-per-host limit',
  } as RecurEventInput;
  const { records } = chain('r', [
    [1, ev.started('root', 0)],
    [2, ev.request('x = 1')], [3, refused],
    [4, ev.request('y = 2')], [5, ev.executed('r/3', 'y = 2', '')],
  ]);
  const plan = planKernelRestore(records, -1);
  expect(plan.replay.map((c) => c.requestId)).toEqual(['r/3']);
  expect(plan.skipped).toEqual([{ requestId: 'r/1', reason: 'it never ran: the host had no kernel for it' }]);
  expect(plan.interruptedCell).toBeNull();
});
