// Prints jest's JSON reports as each tier's time and the plain closing line CI reads: "N passed, N failed[, N skipped]".
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// `npm test` writes one report per tier (reports/jest-unit.json, reports/jest-integration.json), or
// one reports/jest.json when it is given arguments. Named files are read instead, and one that is
// missing is a tier that never finished: it counts as a failure, so the closing line is never green.
const named = process.argv.slice(2);
const missing = named.filter((f) => !existsSync(f));
for (const f of missing) console.log(`${f}: no report (the tier did not finish)`);
const files = named.length > 0
  ? named.filter((f) => existsSync(f))
  : existsSync('reports') ? readdirSync('reports').filter((f) => /^jest.*\.json$/.test(f)).map((f) => join('reports', f)) : [];
if (files.length === 0) {
  console.log(`0 passed, ${missing.length} failed`);
  process.exit(0);
}
const reports = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
const sum = (key) => reports.reduce((n, r) => n + (r[key] ?? 0), 0);
const r = {
  testResults: reports.flatMap((x) => x.testResults ?? []),
  numPassedTests: sum('numPassedTests'), numFailedTests: sum('numFailedTests'), numRuntimeErrorTestSuites: sum('numRuntimeErrorTestSuites'),
  numPendingTests: sum('numPendingTests'), numTodoTests: sum('numTodoTests'),
};
// Each tier's time: a tier runs one file at a time (maxWorkers 1), so its files' durations add up to its time.
const tiers = new Map();
for (const f of r.testResults ?? []) {
  const tier = /[\\/]tests[\\/]([^\\/]+)[\\/]/.exec(f.name)?.[1] ?? 'other';
  const t = tiers.get(tier) ?? { files: 0, ms: 0 };
  tiers.set(tier, { files: t.files + 1, ms: t.ms + Math.max(0, (f.endTime ?? 0) - (f.startTime ?? 0)) });
}
for (const [tier, t] of [...tiers].sort()) console.log(`${tier}: ${t.files} files, ${(t.ms / 60000).toFixed(1)} min`);
const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0) + missing.length;
const skipped = r.numPendingTests + (r.numTodoTests ?? 0);
console.log(`${r.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
