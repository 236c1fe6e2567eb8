// Prints jest's JSON report as the plain closing line CI reads: "N passed, N failed[, N skipped]".
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'reports/jest.json';
if (!existsSync(file)) {
  console.log('0 passed, 0 failed');
  process.exit(0);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
// Each tier's time: one file runs at a time (maxWorkers 1), so a tier's files' durations add up to its share of the run.
const tiers = new Map();
for (const f of r.testResults ?? []) {
  const tier = /[\\/]tests[\\/]([^\\/]+)[\\/]/.exec(f.name)?.[1] ?? 'other';
  const t = tiers.get(tier) ?? { files: 0, ms: 0 };
  tiers.set(tier, { files: t.files + 1, ms: t.ms + Math.max(0, (f.endTime ?? 0) - (f.startTime ?? 0)) });
}
for (const [tier, t] of [...tiers].sort()) console.log(`${tier}: ${t.files} files, ${(t.ms / 60000).toFixed(1)} min`);
const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
const skipped = r.numPendingTests + (r.numTodoTests ?? 0);
console.log(`${r.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
