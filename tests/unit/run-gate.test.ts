import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gateLauncher } from '../../activities/jobs/job-launch';
import { createGateActivities, gateEnv, GATE_OUTPUT_CHARS, type RunGateInput } from '../../activities/run-gate';

const places = {
  python: '/venv/bin/python', kernelDir: '/repo/kernel', sandboxRoot: '/h/run/sb', keyOf: (id: string) => `key-of-${id}`,
  workspaceOf: (id: string) => `/h/workspaces/${id}`,
};
const env = { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', OPENAI_API_KEY: 'sk-secret', RECUR_X: 'kept' };

describe('quality gates', () => {
  const prepared: string[] = [];
  const off = gateLauncher({ ...places, sandbox: 'off', prepare: async (id) => prepared.push(id), env: { ...process.env, ...env } });
  const { runGate } = createGateActivities({ launch: off });
  const gate = (command: string, cwd: string | null, timeoutSeconds = 10) => runGate({ sessionId: 's1', command, timeoutSeconds, cwd } satisfies RunGateInput);

  it('passes on exit 0 in the given directory, with the output, unattended and with no secret (sandbox off)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-'));
    const r = await gate('pwd; echo "x=$RECUR_X key=${OPENAI_API_KEY:-none} ci=$CI gate=$RECUR_GATE"', dir);
    expect(r).toMatchObject({ passed: true, exitCode: 0, output: `${dir}\nx=kept key=none ci=true gate=1\n` });
  });

  it('fails with the exit status and keeps only the tail of a long output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-'));
    const r = await gate(`head -c ${GATE_OUTPUT_CHARS * 2} /dev/zero | tr '\\0' a; echo END >&2; exit 3`, dir);
    expect(r).toMatchObject({ passed: false, exitCode: 3 });
    expect(r.output.length).toBe(GATE_OUTPUT_CHARS);
    expect(r.output.endsWith('END\n')).toBe(true);
  });

  it('kills a gate (and its children) at its timeout and says so', async () => {
    const r = await gate('sleep 30 & sleep 30', mkdtempSync(join(tmpdir(), 'gate-')), 1);
    expect(r).toMatchObject({ passed: false, exitCode: null });
    expect(r.output).toContain('[gate killed after 1s]');
  });

  it('a gate that cannot be launched fails, saying why', async () => {
    const { runGate: broken } = createGateActivities({ launch: async () => { throw new Error('no policy for s1'); } });
    const r = await broken({ sessionId: 's1', command: 'true', timeoutSeconds: 5, cwd: null });
    expect(r).toMatchObject({ passed: false, exitCode: null, output: '[gate could not start: no policy for s1]' });
  });

  it('with the sandbox off, starts in the workspace when no directory is given; nothing is prepared', async () => {
    expect(await off({ sessionId: 's1', command: 'make test', timeoutSeconds: 5, cwd: null })).toMatchObject({ argv: ['bash', '-c', 'make test'], cwd: '/h/workspaces/s1' });
    expect(prepared).toEqual([]);
  });

  it("sandboxed, runs through the job launcher in the session's sandbox, with its egress, the gate's variables and only PATH and LANG", async () => {
    const on = gateLauncher({ ...places, sandbox: 'on', prepare: async (id) => prepared.push(id), env });
    const launch = await on({ sessionId: 's1', command: 'npm test', timeoutSeconds: 5, cwd: '/h/workspaces/s1/app' });
    expect(prepared).toEqual(['s1']);
    expect(launch).toEqual({
      argv: ['/venv/bin/python', '-m', 'recur_jupyter.job', '--egress', '--env', 'CI=true', '--env', 'RECUR_GATE=1', '--cwd', '/h/workspaces/s1/app',
        '/h/run/sb', 'key-of-s1', '--', 'bash', '-c', 'npm test'],
      cwd: '/repo/kernel',
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
    });
  });

  it('never hands a command variables that look like credentials', () => {
    expect(Object.keys(gateEnv({ PATH: '/bin', ANTHROPIC_API_KEY: 'k', GH_TOKEN: 't', DB_PASSWORD: 'p', HOME: '/h' }))).toEqual(['PATH', 'HOME']);
  });
});
