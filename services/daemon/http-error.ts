import { describeRange, type NumericRange } from '../../config';
import { HttpError } from '../../errors';

export const badRequest = (message: string) => new HttpError(400, message, 'BadRequestError');

/** A 400 for a number outside its range: `limits.maxDepth must be an integer 0..8, got 12`. */
export function outOfRange(field: string, range: NumericRange, value: unknown, orNull = false): HttpError {
  const allowed = `${describeRange(range)}${orNull ? ' or null' : ''}`;
  return new HttpError(400, `${field} must be ${allowed}, got ${JSON.stringify(value) ?? 'nothing'}`, 'BadRequestError', { field, allowed });
}

export const notFound = (message: string) => new HttpError(404, message, 'NotFoundError');
