import { RecurError, ScopeError } from '../../errors';

/** A refusal with an explicit HTTP status; handlers may throw it to pick the status themselves. */
export class BridgeError extends RecurError {
  constructor(
    readonly status: number,
    message: string,
    readonly errorName = 'BridgeError',
  ) {
    super(message, { retryable: status >= 500 });
  }
}

export interface ErrorReply {
  status: number;
  body: { error: { name: string; message: string } };
}

/**
 * How an error thrown by a handler reaches Python. The kernel raises an exception named
 * `name`, whose builtin base follows the status (403 → PermissionError, 4xx → ValueError...).
 */
export function toErrorReply(err: unknown): ErrorReply {
  const reply = (status: number, name: string, message: string): ErrorReply => ({
    status,
    body: { error: { name, message } },
  });
  if (err instanceof BridgeError) return reply(err.status, err.errorName, err.message);
  if (err instanceof ScopeError) return reply(403, err.name, err.message);
  if (err instanceof RecurError) return reply(err.retryable ? 503 : 422, err.name, err.message);
  if (err instanceof Error) return reply(500, err.name, err.message);
  return reply(500, 'Error', String(err));
}
