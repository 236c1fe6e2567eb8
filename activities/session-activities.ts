import type { CellExecuted } from '../schemas/generated/events';
import type { CallModelInput, CallModelResult } from './call-model';
import type { AppendEventsInput, AppendEventsResult } from './event-log';

export interface RunCellInput {
  sessionId: string;
  rootId: string;
  /** The CellRequested event id; also the Jupyter msg_id, so a retry can find the run. */
  cellId: string;
  code: string;
  timeoutSeconds: number;
  /** False once the session has run a cell: a fresh kernel then means its namespace was lost. */
  firstCell: boolean;
}

/** The CellExecuted fields the activity knows; the workflow adds requestId and code. */
export type RunCellResult = Omit<CellExecuted, 'type' | 'requestId' | 'code' | 'outputsBlob' | 'executionCount' | 'errorName' | 'errorValue' | 'traceback'>
  & Partial<Pick<CellExecuted, 'outputsBlob' | 'executionCount' | 'errorName' | 'errorValue' | 'traceback'>>;

/** Everything the session workflow may ask of the world. */
export interface SessionActivities {
  appendEvents(input: AppendEventsInput): Promise<AppendEventsResult>;
  callModel(input: CallModelInput): Promise<CallModelResult>;
  runCell(input: RunCellInput): Promise<RunCellResult>;
  shutdownKernel(input: { sessionId: string }): Promise<void>;
}
