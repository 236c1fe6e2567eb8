import { EventLogError, RecurError } from '../../errors';
import type { ErrorBody } from './api-types';

/** A refusal with the HTTP status to answer with; routes throw it, the server turns it into JSON. */
export class DaemonHttpError extends RecurError {
  constructor(readonly status: number, message: string, readonly errorName = 'DaemonHttpError') {
    super(message, { retryable: status >= 500 });
  }
}

export const badRequest = (message: string) => new DaemonHttpError(400, message, 'BadRequestError');
export const notFound = (message: string) => new DaemonHttpError(404, message, 'NotFoundError');

export function toErrorReply(err: unknown): { status: number; body: ErrorBody } {
  const reply = (status: number, name: string, message: string) => ({ status, body: { error: { name, message } } });
  if (err instanceof DaemonHttpError) return reply(err.status, err.errorName, err.message);
  if (err instanceof EventLogError) return reply(503, err.name, err.message);
  if (err instanceof RecurError) return reply(err.retryable ? 503 : 500, err.name, err.message);
  if (err instanceof Error) return reply(500, err.name, err.message);
  return reply(500, 'Error', String(err));
}
