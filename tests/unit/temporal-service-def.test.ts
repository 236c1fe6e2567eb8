import { parseConfig } from '../../config';
import { temporalService } from '../../services/devstack/temporal';

/** The dynamic config values the dev server is started with, by key. */
async function dynamicConfig(): Promise<Map<string, string>> {
  const { config } = parseConfig({ RECUR_HOME: '/tmp/recur-x' });
  const { args } = await temporalService.prepare(config);
  const values = args.flatMap((a, i) => (args[i - 1] === '--dynamic-config-value' ? [a.split('=')] : []));
  return new Map(values.map(([k, v]) => [k, v]));
}

describe('temporal ServiceDef', () => {
  // At the default of 20 reads a second, the one-shard dev server held each task up to 50 ms
  // (docs/performance.md): the step-overhead bench measures what this saves.
  it('lets the history service read its transfer and timer queues as tasks arrive', async () => {
    const dc = await dynamicConfig();
    for (const key of ['history.transferProcessorMaxPollRPS', 'history.timerProcessorMaxPollRPS']) {
      expect(Number(dc.get(key))).toBeGreaterThanOrEqual(1000);
    }
  });

  // At the default of 1 s, a dead worker's attempt failed for a retry 1 ms away waited up to a
  // second more: the worker-kill bench measures what this saves.
  it('fires a timer when it is due, not up to a second later', async () => {
    expect((await dynamicConfig()).get('history.timerProcessorMaxTimeShift')).toBe('"10ms"');
  });

  it('never phones home', async () => {
    expect((await dynamicConfig()).get('frontend.enableServerVersionCheck')).toBe('false');
  });
});
