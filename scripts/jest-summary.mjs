// Prints jest's JSON report as the plain closing line CI reads: "N passed, N failed[, N skipped]".
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'reports/jest.json';
if (!existsSync(file)) {
  console.log('0 passed, 0 failed');
  process.exit(0);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
const skipped = r.numPendingTests + (r.numTodoTests ?? 0);
console.log(`${r.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
