import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGateActivities, gateEnv, GATE_OUTPUT_CHARS } from '../../activities/run-gate';

describe('quality gates', () => {
  const { runGate } = createGateActivities({ env: { ...process.env, OPENAI_API_KEY: 'sk-secret', RECUR_X: 'kept' } });

  it('passes on exit 0 in the given directory, with the output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-'));
    const r = await runGate({ command: 'pwd; echo "x=$RECUR_X key=${OPENAI_API_KEY:-none}"', timeoutSeconds: 10, cwd: dir });
    expect(r).toMatchObject({ passed: true, exitCode: 0, output: `${dir}\nx=kept key=none\n` });
  });

  it('fails with the exit status and keeps only the tail of a long output', async () => {
    const r = await runGate({ command: `head -c ${GATE_OUTPUT_CHARS * 2} /dev/zero | tr '\\0' a; echo END >&2; exit 3`, timeoutSeconds: 10, cwd: null });
    expect(r).toMatchObject({ passed: false, exitCode: 3 });
    expect(r.output.length).toBe(GATE_OUTPUT_CHARS);
    expect(r.output.endsWith('END\n')).toBe(true);
  });

  it('kills a gate (and its children) at its timeout and says so', async () => {
    const r = await runGate({ command: 'sleep 30 & sleep 30', timeoutSeconds: 1, cwd: null });
    expect(r).toMatchObject({ passed: false, exitCode: null });
    expect(r.output).toContain('[gate killed after 1s]');
  });

  it('never hands a gate variables that look like credentials', () => {
    expect(Object.keys(gateEnv({ PATH: '/bin', ANTHROPIC_API_KEY: 'k', GH_TOKEN: 't', DB_PASSWORD: 'p', HOME: '/h' }))).toEqual(['PATH', 'HOME']);
  });
});
