import type { CellExecuted, KernelRestored } from '../schemas/generated/events';

export type KernelRestoredFields = Omit<KernelRestored, 'type'>;

/** The CellExecuted fields the activity knows; the workflow adds requestId and code. */
export type CellFields = Omit<CellExecuted, 'type' | 'requestId' | 'code' | 'outputsBlob' | 'executionCount' | 'errorName' | 'errorValue' | 'traceback'>
  & Partial<Pick<CellExecuted, 'outputsBlob' | 'executionCount' | 'errorName' | 'errorValue' | 'traceback'>>;

/** A restore made before a cell ran, and the line the model reads about it ahead of the cell's output. */
export type Restored = { fields: KernelRestoredFields; note: string };
