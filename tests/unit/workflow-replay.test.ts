import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import * as workflows from '../../workflows';

/**
 * Histories recorded from real runs of every workflow shape the integration tier makes
 * (tests/helpers/record-histories.ts), replayed through today's workflow code with Temporal's
 * replayer: a change that would make a running session nondeterministic fails here
 * (docs/workflows.md "Replay tests").
 */
const DIR = join(__dirname, '..', 'fixtures', 'histories');
const files = readdirSync(DIR).filter((f) => f.endsWith('.pb')).sort();

describe('workflow code replays the recorded histories (tests/fixtures/histories)', () => {
  // The drifted replays' nondeterminism is expected: Core's warnings about it would only be noise.
  beforeAll(() => Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } } }));

  it('has histories of every workflow type', () => {
    expect(new Set(files.map((f) => f.split('-')[0]))).toEqual(new Set(Object.keys(workflows)));
  });

  const histories = () => files.map((f) => ({ workflowId: f, history: temporal.api.history.v1.History.decode(readFileSync(join(DIR, f))) }));
  /** Each history replayed through the workflows at `path`: its file and the error, if any. */
  async function replay(path: string): Promise<Array<{ file: string; error?: string }>> {
    const out: Array<{ file: string; error?: string }> = [];
    for await (const r of Worker.runReplayHistories({ workflowsPath: path, replayName: 'fixtures' }, histories())) {
      out.push({ file: r.workflowId, ...(r.error && { error: `${r.error.name}: ${r.error.message}` }) });
    }
    return out;
  }

  it('replays every one without a nondeterminism error', async () => {
    expect((await replay(require.resolve('../../workflows'))).filter((r) => r.error)).toEqual([]);
  }, 180_000);

  it('fails every one when the workflow code changed what it does first', async () => {
    const results = await replay(require.resolve('../helpers/workflows/drifted'));
    expect(results).toHaveLength(files.length);
    expect(results.filter((r) => !r.error?.includes('DeterminismViolation'))).toEqual([]);
  }, 180_000);
});
