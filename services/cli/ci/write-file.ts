import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RecurError } from '../../../errors';

/**
 * Writes (or appends to) a file the CI flags named, failing with what it was for. Missing parent
 * directories are made, as a JUnit reporter does: a job names `reports/junit.xml` before anything
 * has made `reports/`.
 */
export function writeReportFile(what: string, file: string, text: string, append = false): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    if (append) appendFileSync(file, text);
    else writeFileSync(file, text);
  } catch (e) {
    throw new RecurError(`cannot write the ${what} to ${file}: ${(e as Error).message}`, { cause: e });
  }
}
