import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '../../schemas';
import { writeRecordChart } from '../../services/cli/commands/research-report';
import { researchReport } from '../../services/projector/research-report';
import { recordChartSpec, recordChartSvg } from '../../services/research/record-chart';

const H = 3_600_000;
const T0 = 1_700_000_000_000;
const stored = (seq: number, ts: number, event: Record<string, unknown>) => ({ sessionId: 'r1', parentId: null, seq, ts: T0 + ts, type: event.type, event } as unknown as StoredEvent);
const row = (jobId: string, status: string, steps: number) => ({
  type: 'ExperimentRecorded', jobId, kind: 'record', idea: '', parent: null, problem: 'small', file: 'train.py', source: { sha256: 'a'.repeat(64), size: 1 }, status, steps,
  seeds: [], values: [], mean: 3.27, promising: false, configHash: null, frozenHash: null, reason: '',
});
/** Two hours of research: a rejected candidate at 30 minutes, a record at an hour, the end at two. */
const REPORT = researchReport('r1', [
  stored(0, 0, { type: 'SessionStarted', task: 't', name: 'n', model: 'm', research: { task: 'nqm-speedrun', recordId: 'r0-baseline', recordSteps: 1003, recordMean: 3.275, recordN: 8 } }),
  stored(1, H / 2, row('job-1', 'rejected', 950)),
  stored(2, H / 2, { type: 'RecordRejected', jobId: 'job-1', reason: 'pairwise', previousId: 'r0-baseline', previousSteps: 1003, pairwiseScore: 0, scaleUp: null }),
  stored(3, H, row('job-2', 'accepted', 900)),
  stored(4, H, { type: 'RecordAccepted', jobId: 'job-2', steps: 900, mean: 3.27, n: 8, previousId: 'r0-baseline', previousSteps: 1003, pairwiseScore: 0.05, scaleUp: null }),
  stored(5, 2 * H, { type: 'SessionCompleted', answer: 'done' }),
]);

/** A PNG's width and height, from its IHDR chunk (bytes 16–23, big-endian). */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('the record chart (services/research/record-chart.ts)', () => {
  it('steps through each record to the session\'s end, in hours, and marks the rejected candidates', () => {
    const spec = recordChartSpec(REPORT) as unknown as { layer: { data: { values: { hours: number; steps: number; what: string }[] } }[] };
    expect(spec.layer[0].data.values.map((v) => [v.hours, v.steps])).toEqual([[0, 1003], [1, 900], [2, 900]]);
    expect(spec.layer[1].data.values.map((v) => [v.hours, v.steps, v.what])).toEqual([[0, 1003, 'record'], [1, 900, 'record'], [0.5, 950, 'rejected candidate']]);
  });

  it('draws the chart as SVG with its axes and legend', async () => {
    const svg = await recordChartSvg(REPORT, { width: 600, height: 300 });
    expect(svg).toMatch(/^<svg[^>]* width="600" height="300"/);
    for (const text of ['hours since the session started', 'train_steps', 'rejected candidate']) expect(svg).toContain(text);
  });

  it('writes record.png of the size asked into the directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-chart-'));
    const file = await writeRecordChart(REPORT, join(dir, 'new'), { width: 640, height: 360 });
    expect(file).toBe(join(dir, 'new', 'record.png'));
    const png = readFileSync(file);
    expect(png.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(pngSize(png)).toEqual({ width: 640, height: 360 });
    // A blank white 640x360 PNG compresses to well under 2 KB; lines, points and text do not.
    expect(png.length).toBeGreaterThan(8_000);
  });
});
