import { appendFileSync, writeFileSync } from 'node:fs';
import { RecurError } from '../../../errors';

/** Writes (or appends to) a file the CI flags named, failing with what it was for. */
export function writeReportFile(what: string, file: string, text: string, append = false): void {
  try {
    if (append) appendFileSync(file, text);
    else writeFileSync(file, text);
  } catch (e) {
    throw new RecurError(`cannot write the ${what} to ${file}: ${(e as Error).message}`, { cause: e });
  }
}
