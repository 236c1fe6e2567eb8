import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, parseConfig } from '../../config';
import { StackError } from '../../errors';
import { stackPaths } from '../../config/home-paths';
import { down, status, up } from '../../services/devstack';
import { isAlive } from '../../services/home/process';

describe('embedded stack (recur up/status/down)', () => {
  const config = loadConfig();

  it('reports every service healthy with a pid and a loopback url', async () => {
    const services = await status(config);
    expect(services.map((s) => s.name)).toEqual(['kafka', 'temporal', 'jupyter', 'daemon', 'worker']);
    // Whole records, so a failure names the service and what status saw of it.
    expect(services.filter((s) => !s.healthy)).toEqual([]);
    for (const s of services) expect(s.pid).toEqual(expect.any(Number));
    expect(services.filter((s) => s.name !== 'worker').every((s) => s.url.includes('127.0.0.1'))).toBe(true);
  });

  it('treats a second up as a no-op: same processes, nothing restarted', async () => {
    const before = await status(config);
    const after = await up(config);
    expect(after.map((s) => s.pid)).toEqual(before.map((s) => s.pid));
  });

  it('restarts the worker when it is SIGKILLed', async () => {
    const before = (await status(config)).find((s) => s.name === 'worker')!;
    expect(before.healthy).toBe(true);
    process.kill(before.pid!, 'SIGKILL');
    let after = before;
    for (let i = 0; i < 100 && (after.pid === before.pid || !after.healthy); i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = (await status(config)).find((s) => s.name === 'worker')!;
    }
    expect(after.healthy).toBe(true);
    expect(after.pid).not.toBe(before.pid);
    expect(isAlive(before.pid!)).toBe(false);
  });

  describe('in a scratch home', () => {
    const home = mkdtempSync(join(tmpdir(), 'recur-devstack-'));
    const scratch = () => parseConfig({
      ...process.env,
      RECUR_HOME: home,
      RECUR_TOOLS_DIR: config.toolsDir,
      RECUR_KAFKA_PORT: '29392',
      RECUR_KAFKA_CONTROLLER_PORT: '29393',
      RECUR_TEMPORAL_PORT: '29394',
      RECUR_TEMPORAL_HTTP_PORT: '29395',
      RECUR_TEMPORAL_METRICS_PORT: '29396',
      RECUR_JUPYTER_PORT: '29397',
      RECUR_DAEMON_PORT: '29398',
    }).config;

    it('refuses a taken port with a message naming the setting, before starting anything', async () => {
      const blocker: Server = createServer();
      await new Promise<void>((r) => blocker.listen(29394, '127.0.0.1', r));
      try {
        const err = await up(scratch()).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StackError);
        expect((err as StackError).message).toMatch(/port 29394 .* in use/);
        expect((err as StackError).hint).toMatch(/RECUR_TEMPORAL_PORT/);
        for (const s of ['kafka', 'temporal', 'jupyter', 'daemon']) {
          expect(existsSync(join(stackPaths(scratch()).run, `${s}.pid`))).toBe(false);
        }
      } finally {
        await new Promise((r) => blocker.close(r));
      }
    });

    it('cleans a stale pid file and never signals a process it did not start', async () => {
      const run = stackPaths(scratch()).run;
      mkdirSync(run, { recursive: true });
      const stranger = spawn('sleep', ['30'], { stdio: 'ignore' });
      writeFileSync(join(run, 'kafka.pid'), JSON.stringify({ pid: stranger.pid, marker: 'not-this-process', startedAt: '' }));
      writeFileSync(join(run, 'temporal.pid'), JSON.stringify({ pid: 2 ** 22 - 1, marker: 'x', startedAt: '' }));
      try {
        const services = await status(scratch());
        expect(services.every((s) => s.pid === null && !s.healthy)).toBe(true);
        expect(await down(scratch())).toEqual([]);
        expect(isAlive(stranger.pid!)).toBe(true);
        expect(existsSync(join(run, 'kafka.pid'))).toBe(false);
        expect(existsSync(join(run, 'temporal.pid'))).toBe(false);
      } finally {
        stranger.kill();
      }
    });
  });
});
