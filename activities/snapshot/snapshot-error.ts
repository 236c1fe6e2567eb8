import { RecurError } from '../../errors';

/**
 * A snapshot or restore could not be made or read: a malformed manifest or kernel report, or a
 * kernel that wrote its blobs somewhere the host cannot see. Repeating the call will not help.
 */
export class SnapshotError extends RecurError {
  constructor(message: string, opts: { cause?: unknown; hint?: string } = {}) {
    super(message, { ...opts, retryable: false });
  }
}
