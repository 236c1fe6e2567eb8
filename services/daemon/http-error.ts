import { describeRange, type NumericRange } from '../../config';
import { EventLogError, RecurError } from '../../errors';
import type { ErrorBody } from './api-types';

/** A refusal with the HTTP status to answer with; routes throw it, the server turns it into JSON. */
export class DaemonHttpError extends RecurError {
  constructor(readonly status: number, message: string, readonly errorName = 'DaemonHttpError', readonly range?: FieldRange) {
    super(message, { retryable: status >= 500 });
  }
}

/** Which request field a 400 is about and what it may hold, for clients that show more than the message. */
export interface FieldRange {
  field: string;
  allowed: string;
}

export const badRequest = (message: string) => new DaemonHttpError(400, message, 'BadRequestError');

/** A 400 for a number outside its range: `limits.maxDepth must be an integer 0..8, got 12`. */
export function outOfRange(field: string, range: NumericRange, value: unknown, orNull = false): DaemonHttpError {
  const allowed = `${describeRange(range)}${orNull ? ' or null' : ''}`;
  return new DaemonHttpError(400, `${field} must be ${allowed}, got ${JSON.stringify(value) ?? 'nothing'}`, 'BadRequestError', { field, allowed });
}
export const notFound = (message: string) => new DaemonHttpError(404, message, 'NotFoundError');

export function toErrorReply(err: unknown): { status: number; body: ErrorBody } {
  const reply = (status: number, name: string, message: string, range?: FieldRange) => ({ status, body: { error: { name, message, ...range } } });
  if (err instanceof DaemonHttpError) return reply(err.status, err.errorName, err.message, err.range);
  if (err instanceof EventLogError) return reply(503, err.name, err.message);
  if (err instanceof RecurError) return reply(err.retryable ? 503 : 500, err.name, err.message);
  if (err instanceof Error) return reply(500, err.name, err.message);
  return reply(500, 'Error', String(err));
}
