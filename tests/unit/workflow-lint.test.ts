import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../services/home/repo-root';

/**
 * ESLint with type information over workflows/** (eslint.config.mjs): restricted imports, Node's
 * globals, and no floating promises, which a regular expression cannot see. ESLint loads its
 * config by dynamic import, which jest's module sandbox refuses, so it runs in a Node of its own.
 */
const cwd = repoRoot();

/** Lints the workflow files, or with `probe` that source as if it were workflows/lint-probe.ts: `line rule: message` per problem. */
async function lint(probe?: string): Promise<string[]> {
  const script = `
    import { ESLint } from 'eslint';
    const probe = process.env.PROBE;
    // The probe is in no tsconfig, so the default project types it.
    const probeProject = { files: ['workflows/lint-probe.ts'], languageOptions: { parserOptions: { projectService: { allowDefaultProject: ['workflows/lint-probe.ts'] } } } };
    const eslint = new ESLint(probe === undefined ? {} : { overrideConfig: probeProject });
    const results = probe === undefined ? await eslint.lintFiles(['workflows/**/*.ts']) : await eslint.lintText(probe, { filePath: ${JSON.stringify(join(cwd, 'workflows', 'lint-probe.ts'))} });
    console.log(JSON.stringify(results.flatMap((r) => r.messages.map((m) => r.filePath.slice(process.cwd().length + 1) + ':' + m.line + ' ' + m.ruleId + ': ' + m.message))));
  `;
  const env = probe === undefined ? process.env : { ...process.env, PROBE: probe };
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd, env, maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(stdout) as string[];
}

describe('ESLint on workflows/ (eslint.config.mjs)', () => {
  it('finds nothing in the workflow code', async () => {
    expect(await lint()).toEqual([]);
  }, 120_000);

  it('catches a value import of an I/O module or layer, a floating promise and a Node global; allows type imports', async () => {
    const probe = [
      "import { Kafka } from 'kafkajs';",
      "import type { Producer } from 'kafkajs';",
      "import { sleep } from '@temporalio/workflow';",
      "import { kafkaClient } from '../services/devstack';",
      'export async function step(p: Producer): Promise<void> {',
      '  sleep(10);',
      '  console.log(Kafka, kafkaClient, p, process.env.HOME);',
      '}',
    ].join('\n');
    expect((await lint(probe)).map((m) => m.split(':')[1])).toEqual([
      '1 @typescript-eslint/no-restricted-imports',
      '4 @typescript-eslint/no-restricted-imports',
      '6 @typescript-eslint/no-floating-promises',
      '7 no-restricted-globals',
    ]);
  }, 120_000);
});
