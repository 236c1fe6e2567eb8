/*
 * An operator's controls of a running session: interrupt the cell in flight, switch the model for
 * the next turns, compact at the next model call. Deterministic workflow code: the interrupt is an
 * activity (SIGINT through the Jupyter server), the switch an appended event.
 */
import { ActivityFailure, condition, setHandler } from '@temporalio/workflow';
import type { CellFields } from '../activities/cell-fields';
import { guardUpdate } from './guard-handler';
import { compactNowUpdate, interruptCellUpdate, switchModelUpdate } from './operator-messages';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';

/** What the model reads after an interrupted cell's output. */
export const OPERATOR_INTERRUPT_NOTE = '[the operator interrupted this cell; the kernel and its variables are intact]';

export function installOperatorHandlers(s: SessionState, acts: ReturnType<typeof sessionActivities>): void {
  setHandler(interruptCellUpdate, guardUpdate(s, async () => {
    const cell = s.ops.cellInFlight;
    if (cell === null) return { interrupted: false };
    if (s.ops.interruptedCell === cell) return { interrupted: true };
    s.ops.interruptedCell = cell;
    s.ops.interrupting = true;
    try {
      await acts.interruptKernel({ sessionId: s.id, cellId: cell });
      return { interrupted: true };
    } catch (e) {
      if (!(e instanceof ActivityFailure)) throw e;
      // No kernel to signal (lost, or shut down as the cell ended): the cell's own result says what became of it.
      if (s.ops.interruptedCell === cell) s.ops.interruptedCell = null;
      return { interrupted: false };
    } finally {
      s.ops.interrupting = false;
    }
  }));

  setHandler(switchModelUpdate, guardUpdate(s, async ({ model }) => {
    const previous = s.ops.model;
    if (model !== previous) await s.emit(() => [{ type: 'ModelSwitched', model, previous }], () => (s.ops.model = model));
    return { model };
  }));

  setHandler(compactNowUpdate, () => {
    void s.settleSteps();
    s.ops.compactAsked = true;
    return { requested: true } as const;
  });
}

/** Before a cell starts: an interrupt still on its way to the kernel must not reach this cell. */
export const interruptSent = (s: SessionState): Promise<void> => condition(() => !s.ops.interrupting);

/** The cell's fields as logged: an interrupt the operator asked for is named in its outputs, which the model reads. */
export function withOperatorNote(s: SessionState, requestId: string, cell: CellFields): CellFields {
  const asked = s.ops.interruptedCell === requestId;
  s.ops.cellInFlight = null;
  s.ops.interruptedCell = null;
  if (!asked || cell.status !== 'interrupted') return cell;
  return { ...cell, outputs: cell.outputs ? `${cell.outputs}\n${OPERATOR_INTERRUPT_NOTE}` : OPERATOR_INTERRUPT_NOTE };
}
