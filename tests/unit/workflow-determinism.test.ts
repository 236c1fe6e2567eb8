import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../services/devstack';

/**
 * Workflow code must replay deterministically: it may import the workflow SDK, its own folder
 * and dependency-free schema modules, and only types from anywhere else. Non-deterministic calls
 * (random numbers, timers, the wall clock through Node) are banned outright.
 */
const DIR = join(repoRoot(), 'workflows');
const PURE = new Set(['@temporalio/workflow', '../schemas/session-ids', '../schemas/log-constants', '../schemas/field-limits', '../schemas/generated/events']);
const BANNED = [/\bMath\.random\(/, /\bsetTimeout\(/, /\bsetInterval\(/, /\bprocess\./, /\brequire\(/, /\bnew Date\(\)/];

const IMPORT = /^(?:import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms;

const files = readdirSync(DIR).filter((f) => f.endsWith('.ts'));

describe('workflows/ stays deterministic', () => {
  it.each(files)('%s imports only the workflow SDK, workflow modules, pure schema modules, or types', (file) => {
    const src = readFileSync(join(DIR, file), 'utf8');
    const imports = [...src.matchAll(IMPORT)];
    const bad = imports
      .filter(([, isType, from]) => !isType && !from.startsWith('./') && !PURE.has(from))
      .map(([, , from]) => from);
    expect(bad).toEqual([]);
  });

  it.each(files)('%s calls nothing non-deterministic', (file) => {
    const src = readFileSync(join(DIR, file), 'utf8');
    expect(BANNED.filter((re) => re.test(src)).map(String)).toEqual([]);
  });

  it('the check catches a value import of an I/O module', () => {
    const src = "import { Kafka } from 'kafkajs';";
    const [[, isType, from]] = [...src.matchAll(IMPORT)];
    expect(!isType && !from.startsWith('./') && !PURE.has(from)).toBe(true);
  });
});
