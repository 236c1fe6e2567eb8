import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from '../../services/home/repo-root';

/**
 * Workflow code must replay deterministically: it may import the workflow SDK, workflow modules
 * and dependency-free schema modules, and only types from anywhere else. Non-deterministic calls
 * (random numbers, timers, the wall clock through Node) are banned outright. ESLint checks the
 * same with type information (tests/unit/workflow-lint.test.ts); this check needs nothing but
 * the sources, and names each file.
 */
const ROOT = repoRoot();
const DIR = join(ROOT, 'workflows');
/** The schema modules a workflow may import values from, by the file they are (relative to the repository). */
const PURE = new Set(['schemas/session-ids.ts', 'schemas/log-constants.ts', 'schemas/field-limits.ts', 'schemas/generated/events.ts']);
const PACKAGES = new Set(['@temporalio/workflow']);
const BANNED = [/\bMath\.random\(/, /\bsetTimeout\(/, /\bsetInterval\(/, /\bprocess\./, /\brequire\(/, /\bnew Date\(\)/];

const IMPORT = /^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms;

/** The file a relative import of `from` (in `file`) points to, relative to the repository; null when none exists. */
function target(file: string, from: string): string | null {
  const base = resolve(dirname(file), from);
  const found = [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
  return found ? relative(ROOT, found) : null;
}

/** What is wrong with workflow file `file` (absolute, under workflows/) holding `src`: one line per problem. */
function determinismProblems(file: string, src: string): string[] {
  const problems: string[] = [];
  for (const [, isType, from] of src.matchAll(IMPORT)) {
    if (isType) continue;
    if (!from.startsWith('.')) {
      if (!PACKAGES.has(from)) problems.push(`imports ${from}`);
      continue;
    }
    const to = target(file, from);
    if (to === null) problems.push(`imports ${from}, which is no file`);
    else if (!to.startsWith('workflows/') && !PURE.has(to)) problems.push(`imports ${from} (${to})`);
  }
  for (const re of BANNED) if (re.test(src)) problems.push(`calls ${re.source}`);
  return problems;
}

function workflowFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? workflowFiles(path) : e.name.endsWith('.ts') ? [path] : [];
  });
}

const files = workflowFiles(DIR).map((f) => relative(DIR, f));

describe('workflows/ stays deterministic', () => {
  it('looks into every folder of workflows/', () => {
    expect(files).toEqual(expect.arrayContaining(['agent-session.ts', 'harness/harness-workflow.ts', 'approvals/approval-book.ts']));
  });

  it.each(files)('%s imports only the workflow SDK, workflow modules, pure schema modules, or types, and calls nothing non-deterministic', (file) => {
    const path = join(DIR, file);
    expect(determinismProblems(path, readFileSync(path, 'utf8'))).toEqual([]);
  });

  it('the check resolves each import by the file it points to, and catches banned calls', () => {
    const inHarness = join(DIR, 'harness', 'probe.ts');
    const src = [
      "import { Kafka } from 'kafkajs';",
      "import type { Producer } from 'kafkajs';",
      "import { isChildId } from '../schemas/session-ids';", // written as from workflows/: points to workflows/schemas/, no file
      "import { FIELD_LIMITS } from '../../schemas/field-limits';",
      "import { kafkaClient } from '../../services/devstack';",
      "import { condition } from '@temporalio/workflow';",
      "import { foldHarness } from './fold-harness';",
      'export const later = () => setTimeout(() => Math.random(), 1);',
    ].join('\n');
    expect(determinismProblems(inHarness, src)).toEqual([
      'imports kafkajs',
      'imports ../schemas/session-ids, which is no file',
      'imports ../../services/devstack (services/devstack/index.ts)',
      'calls \\bMath\\.random\\(',
      'calls \\bsetTimeout\\(',
    ]);
  });
});
