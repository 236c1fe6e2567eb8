import { configToEnv, parseConfig } from '../../config';
import { daemonService } from '../../services/devstack/daemon';
import { startTestServer } from '../helpers/daemon-test-server';

describe('daemon ServiceDef', () => {
  it('passes the whole config through the environment, so the daemon and worker load what `up` used', () => {
    const { config } = parseConfig({
      RECUR_HOME: '/tmp/recur-x', RECUR_DAEMON_PORT: '31000', RECUR_KAFKA_TOPIC: 'events.x', RECUR_TASK_QUEUE: 'q-x', RECUR_MAX_TURNS: '7',
      RECUR_MODEL: 'openai/gpt-4o', RECUR_SNAPSHOT_EVERY_CELLS: '5',
    });
    config.kafka.clientId = 'recur'; // no env key; comes from <home>/config.json, which the daemon reads too
    expect(parseConfig(configToEnv(config)).config).toEqual(config);
  });

  it("launches node on the built daemon with the caller's environment (provider keys) plus the config", async () => {
    process.env.RECUR_TEST_PROVIDER_KEY = 'sk-test';
    try {
      const { config } = parseConfig({ RECUR_HOME: '/tmp/recur-x' });
      const spec = await daemonService.prepare(config);
      expect(spec.cmd).toBe(process.execPath);
      expect(spec.args).toEqual([expect.stringMatching(/dist\/services\/daemon\/main\.js$/)]);
      expect(spec.marker).toBe(spec.args[0]);
      expect(spec.env).toMatchObject({ RECUR_TEST_PROVIDER_KEY: 'sk-test', RECUR_HOME: '/tmp/recur-x', RECUR_DAEMON_PORT: String(config.ports.daemon) });
    } finally {
      delete process.env.RECUR_TEST_PROVIDER_KEY;
    }
  });

  it('is healthy only when /v1/health answers with the token and the worker is alive', async () => {
    const up = await startTestServer();
    const down = await startTestServer({ worker: { pid: null, restarts: 3, alive: false } });
    try {
      expect(await daemonService.healthy(up.config)).toBe(true);
      expect(await daemonService.healthy(down.config)).toBe(false);
      expect(await daemonService.healthy({ ...up.config, home: '/nonexistent' })).toBe(false); // no token file
    } finally {
      await up.close();
      await down.close();
    }
    expect(await daemonService.healthy(up.config)).toBe(false); // nobody listening
  });
});
