import { ApplicationFailure } from '@temporalio/activity';
import { RecurError, ThrottledError } from '../errors';

/**
 * Wraps each activity so a RecurError that says `retryable: false` becomes a non-retryable
 * Temporal failure (typed by the error's class name): Temporal's retry policy then follows the
 * verdict our code reached, for every activity alike.
 */
export function withRecurErrors<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        if (e instanceof RecurError && !e.retryable) {
          // A throttle's reset travels to the workflow, which waits for it (workflows/throttle-wait.ts).
          const details = e instanceof ThrottledError ? [e.info] : undefined;
          throw ApplicationFailure.create({ message: e.message, type: e.name, nonRetryable: true, cause: e, details });
        }
        throw e;
      }
    };
  }
  return wrapped as T;
}
