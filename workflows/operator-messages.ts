import { defineUpdate } from '@temporalio/workflow';

/*
 * An operator's controls of a running session (the daemon's interrupt, model and compact routes,
 * `recur chat`). Updates, not signals: the caller needs the answer (whether a cell was running,
 * the model now in use), and a model switch is logged before the reply.
 */

/** `interrupted`: false when no cell was running (nothing was sent to the kernel). */
export type InterruptReply = { interrupted: boolean };
export const interruptCellUpdate = defineUpdate<InterruptReply, []>('interruptCell');

/** The spec was validated by the daemon (parseModelSpec); the session's next model calls use it. */
export const switchModelUpdate = defineUpdate<{ model: string }, [{ model: string }]>('switchModel');

/** The next model call summarises everything but the latest turn first (Compacted, manual). */
export const compactNowUpdate = defineUpdate<{ requested: true }, []>('compactNow');
