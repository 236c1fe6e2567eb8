import { spawnSync } from 'node:child_process';
import { inflateSync } from 'node:zlib';
import { parseBenchArgs } from '../../bench/args';
import { benchEnv } from '../../bench/bench-stack';
import { eventSeal } from '../../bench/event-seal';
import { fanOutScript, fanOutTimes } from '../../bench/fan-out';
import { gateSandbox } from '../../bench/gate-sandbox';
import { workspaceScan } from '../../bench/workspace-scan';
import { barChart, compact, lineChart, niceCeil } from '../../bench/chart';
import { glyphPixel } from '../../bench/font';
import { crc32, encodePng } from '../../bench/png';
import { compare, notYet, renderSummary, type BenchReport } from '../../bench/report';
import { countLogged, retainedScript } from '../../bench/retained-memory';
import { checkpointWaves, scaleScript } from '../../bench/retained-scale';
import { filler, sessionEvents } from '../../bench/sample-events';
import { deltas, ratio, summarize } from '../../bench/stats';
import { viewerResults } from '../../bench/viewer-render';
import { writeViewerTree } from '../../bench/viewer-tree';
import { encodeEventBatch, verifyChain, ZERO_HASH, type StoredEvent } from '../../schemas';
import { canSandbox } from '../helpers/job-sandbox';

// The benchmark suite's pure parts on fake samples, so `npm run bench` does not rot between runs.

describe('bench statistics', () => {
  it('summarizes samples with an interpolated median and nearest-rank p90', () => {
    expect(summarize([5, 1, 3])).toEqual({ n: 3, median: 3, p90: 5, min: 1, max: 5, mean: 3 });
    const s = summarize([10, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s.median).toBe(5.5);
    expect(s.p90).toBe(9);
    expect(s.min).toBe(1);
  });

  it('refuses empty or non-finite samples', () => {
    expect(() => summarize([])).toThrow(RangeError);
    expect(() => summarize([1, NaN])).toThrow(RangeError);
  });

  it('compares medians and turns timestamps into gaps', () => {
    expect(ratio(summarize([4, 4]), summarize([2]))).toBe(2);
    expect(ratio(summarize([4]), summarize([0]))).toBeNull();
    expect(deltas([10, 15, 27])).toEqual([5, 12]);
  });
});

describe('bench report', () => {
  const report = (): BenchReport => ({
    startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', quick: true,
    machine: { cpus: 2, memoryGiB: 8, node: '20.0.0', platform: 'linux' }, plots: ['a.png'],
    results: [
      compare({
        name: 'x/y', title: 'Step | time', unit: 'ms', better: 'lower',
        subject: { label: 'recur', samples: [30, 10, 20] }, baseline: { label: 'bare', samples: [5, 5] }, limits: 'Kafka acks',
      }),
      notYet('z', 'Idle unload', 'not built'),
      { name: 'w', title: 'Broken', status: 'failed', error: 'boom' },
    ],
  });

  it('records each comparison with both summaries and the ratio of medians', () => {
    const [m] = report().results;
    expect(m).toMatchObject({ status: 'measured', ratio: 4, subject: { summary: { median: 20, n: 3 } }, baseline: { summary: { n: 2 } } });
  });

  it('renders one table row per measured result and lists what was not measured', () => {
    const md = renderSummary(report());
    expect(md).toContain('| Step \\| time | 20 ms (30 ms) | bare: 5 ms (5 ms) | 4× (lower is better) | 3 / 2 | Kafka acks |');
    expect(md).toContain('- **Idle unload**: not built');
    expect(md).toContain('- **Broken**: boom');
    expect(md).toContain('![a.png](a.png)');
  });
});

describe('bench arguments', () => {
  const known = ['step-overhead', 'event-log'];
  it('reads --quick, --only (comma lists, repeated) and --out', () => {
    expect(parseBenchArgs(['--quick', '--only', 'event-log,step-overhead', '--out', '/tmp/r'], known, 'd'))
      .toEqual({ quick: true, only: ['event-log', 'step-overhead'], out: '/tmp/r' });
    expect(parseBenchArgs([], known, 'd')).toEqual({ quick: false, only: [], out: 'd' });
  });

  it('names an unknown benchmark or flag', () => {
    expect(() => parseBenchArgs(['--only', 'nope'], known, 'd')).toThrow(/unknown benchmark nope/);
    expect(() => parseBenchArgs(['--fast'], known, 'd')).toThrow(/unknown argument --fast/);
    expect(() => parseBenchArgs(['--only'], known, 'd')).toThrow(/needs a value/);
  });
});

describe('bench PNG output', () => {
  it('computes the standard CRC-32 check value', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('encodes RGB pixels as a PNG whose IDAT holds the rows behind filter bytes', () => {
    const png = encodePng(2, 1, Uint8Array.from([255, 0, 0, 0, 0, 255]));
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.readUInt32BE(16)).toBe(2);
    expect(png.readUInt32BE(20)).toBe(1);
    const idat = png.indexOf('IDAT');
    const raw = inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    expect([...raw]).toEqual([0, 255, 0, 0, 0, 0, 255]);
    expect(() => encodePng(2, 2, new Uint8Array(3))).toThrow(RangeError);
  });

  it('draws charts as 800×480 PNGs', () => {
    const line = lineChart({ title: 'T', xLabel: 'STEP', yLabel: 'BYTES', series: [{ label: 'A', points: [[0, 1], [10, 5]] }] });
    const bars = barChart({ title: 'T', yLabel: 'MS', legend: ['A', 'B'], groups: [{ label: 'G', values: [1, 2] }] });
    for (const png of [line, bars]) expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([800, 480]);
  });

  it('has glyphs for chart text and nice axis steps', () => {
    expect([0, 1, 2, 3, 4].every((x) => glyphPixel('T', x, 0))).toBe(true);
    expect(glyphPixel('t', 0, 6)).toBe(false);
    expect(glyphPixel('~', 2, 3)).toBe(false);
    expect([niceCeil(0), niceCeil(3), niceCeil(7), niceCeil(10), niceCeil(0.03)]).toEqual([1, 3, 8, 10, 0.03]);
    expect([compact(1500), compact(25_000), compact(2_000_000), compact(0.25)]).toEqual(['1500', '25K', '2M', '0.25']);
  });
});

describe('bench sample events', () => {
  it('are deterministic and encode as valid, chained log events', () => {
    expect(filler(100, 7)).toBe(filler(100, 7));
    expect(filler(100, 7).length).toBeGreaterThanOrEqual(50);
    const events = sessionEvents(7, 0, 1_700_000_000_000);
    expect(events.map((e) => e.event.type)).toEqual(['ModelCalled', 'CellRequested', 'CellExecuted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'ModelCalled']);
    const batch = encodeEventBatch({ sessionId: 's', rootId: 's', parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events });
    expect(batch.nextSeq).toBe(7);
    const mean = batch.values.reduce((n, v) => n + v.length, 0) / batch.values.length;
    expect(mean).toBeGreaterThan(300);
    expect(mean).toBeLessThan(3000);
  });
});

describe('bench event seals', () => {
  it('measures sealing against plain encoding, and auditing against the chain alone, in-process', async () => {
    const results = await eventSeal.run({ quick: true, log: () => undefined } as never);
    expect(results.map((r) => [r.name, r.status])).toEqual([['event-seal/append', 'measured'], ['event-seal/verify', 'measured']]);
  });
});

describe('bench workspace scan', () => {
  it('measures a changed and an unchanged scan against git status on a small checkout', async () => {
    const results = await workspaceScan.run({ quick: true, log: () => undefined } as never);
    expect(results.map((r) => [r.name, r.status])).toEqual([['workspace-scan/changed', 'measured'], ['workspace-scan/unchanged', 'measured']]);
  });
});

describe('bench gate in the sandbox', () => {
  const title = 'times the same gate sandboxed and on the host, and an empty gate each way';
  (canSandbox ? it : it.skip)(canSandbox ? title : `${title} (skipped: needs bwrap on PATH and root)`, async () => {
    const results = await gateSandbox.run({ quick: true, log: () => undefined } as never);
    expect(results.map((r) => [r.name, r.status])).toEqual([['gate-sandbox/unittest', 'measured'], ['gate-sandbox/less-start', 'measured'], ['gate-sandbox/start', 'measured']]);
  }, 120_000);
});

describe('bench retained sub-agents', () => {
  it('scripts a root that spawns n holders and waits for the user, and one reply list per holder', () => {
    const agents = retainedScript(2);
    expect(Object.keys(agents)).toEqual(['root', 'held0', 'held1']);
    expect(agents.root[0]).toContain('["held0","held1"]');
    expect(agents.held1).toHaveLength(2);
  });

  it('counts the children that logged an event type', () => {
    const sessions = new Map([['r/a', [{ type: 'SessionCompleted' }, { type: 'SessionUnloaded' }]], ['r/b', [{ type: 'SessionCompleted' }]]]);
    expect(countLogged(sessions, ['r/a', 'r/b', 'r/c'], 'SessionCompleted')).toBe(2);
    expect(countLogged(sessions, ['r/a', 'r/b'], 'SessionUnloaded')).toBe(1);
  });
});

describe('bench retained sub-agents at scale', () => {
  it('reads memory after the first wave, the waves that reach each target, and the last', () => {
    expect(checkpointWaves(1000, 23, [100, 250, 500])).toEqual([1, 5, 11, 22, 44]);
    expect(checkpointWaves(40, 4, [20])).toEqual([1, 5, 10]);
    expect(checkpointWaves(5, 4, [100])).toEqual([1, 2]);
  });

  it("scripts a root whose cell spawns every holder once, a wave at a time, waiting for the user after each checkpoint wave", () => {
    const agents = scaleScript(10, 4, [1, 3]);
    expect(Object.keys(agents)).toHaveLength(11);
    expect(agents.h9).toHaveLength(2);
    // The root's cell, run by Python with stand-ins for rlm() and agent_message that record each call.
    const cell = agents.root[0].replace(/^```python\n|\n```$/g, '');
    const stubs = [
      'import json', 'calls = []',
      'class H:', '    def result(self, timeout): return "held"',
      'def rlm(task, name): calls.append(name); return H()',
      'class M:', '    def recv(self, timeout): calls.append("recv"); return {"from": "user"}',
      'agent_message = M()',
    ].join('\n');
    const r = spawnSync('python3', ['-c', `${stubs}\n${cell}\nprint(json.dumps(calls))`], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    const [printed, calls] = r.stdout.trim().split('\n');
    expect(printed).toBe('10');
    expect(JSON.parse(calls)).toEqual(['h0', 'h1', 'h2', 'h3', 'recv', 'h4', 'h5', 'h6', 'h7', 'h8', 'h9', 'recv']);
  });
});

describe('bench viewer render', () => {
  it('writes a synthetic tree of exactly the asked size: chained per session, every child spawned before it logs and collected after', async () => {
    const written: StoredEvent[] = [];
    const log = {
      async appendEvents(input: Parameters<typeof encodeEventBatch>[0]) {
        const batch = encodeEventBatch(input);
        written.push(...batch.records);
        return { nextSeq: batch.nextSeq, headHash: batch.headHash, eventIds: batch.records.map((r) => r.eventId) };
      },
    };
    await writeViewerTree(log, 'v', 1_000, 3, 1_700_000_000_000);
    expect(written).toHaveLength(1_000);
    expect(verifyChain(written)).toMatchObject({ ok: true });
    expect([...new Set(written.map((e) => e.sessionId))]).toEqual(['v', 'v/worker0', 'v/worker1', 'v/worker2']);
    const at = (pred: (e: StoredEvent) => boolean) => written.findIndex(pred);
    for (const kid of ['v/worker0', 'v/worker1', 'v/worker2']) {
      expect(at((e) => e.type === 'SubagentSpawned' && (e.event as { childId: string }).childId === kid)).toBeLessThan(at((e) => e.sessionId === kid));
      expect(at((e) => e.type === 'SubagentCompleted' && (e.event as { childId: string }).childId === kid)).toBeGreaterThan(written.map((e) => e.sessionId).lastIndexOf(kid));
    }
    expect(written.at(-1)).toMatchObject({ sessionId: 'v', type: 'SessionCompleted' });
    expect(new Set(written.map((e) => e.type))).toEqual(new Set(['SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SubagentSpawned', 'SessionCompleted', 'SubagentCompleted']));
  });

  it('reports the large tree against the small one as ratios, loads from a daemon keeping no tree apart, and whether each met its target', () => {
    const large = [{ ms: 600, loadedMs: 5000, heapMB: 30 }, { ms: 400, loadedMs: 3000, heapMB: 60 }, { ms: 500, loadedMs: 3200, heapMB: 62 }, { ms: 2500, loadedMs: 3100, heapMB: 61 }];
    const small = [{ ms: 200, loadedMs: 220, heapMB: 5 }, { ms: 100, loadedMs: 120, heapMB: 6 }];
    const unheld = { large: [{ ms: 2600, loadedMs: 4000, heapMB: 60 }, { ms: 2400, loadedMs: 3900, heapMB: 60 }], small: [{ ms: 250, loadedMs: 300, heapMB: 5 }] };
    const [warm, cold, loaded, heap] = viewerResults({ large: 100_000, small: 1_000 }, { held: { large, small }, unheld });
    expect(warm).toMatchObject({ status: 'measured', ratio: 550 / 150, details: { targetMs: 2000, withinTarget: true, firstLoadMs: 600 } });
    expect(cold).toMatchObject({ status: 'measured', ratio: 2500 / 250, details: { withinTarget: false } });
    expect(loaded).toMatchObject({ status: 'measured', ratio: 3150 / 170 });
    expect(heap).toMatchObject({ status: 'measured', unit: 'MB', ratio: 60.5 / 5.5 });
  });
});

describe('bench port block', () => {
  it('shifts every port by RECUR_BENCH_PORT_OFFSET and keeps the block without it', () => {
    const plain = benchEnv({});
    const moved = benchEnv({ RECUR_BENCH_PORT_OFFSET: '1500' });
    expect(plain.RECUR_KAFKA_PORT).toBe('24192');
    const portKeys = Object.keys(plain).filter((k) => k.endsWith('_PORT'));
    expect(portKeys.length).toBeGreaterThanOrEqual(8);
    for (const k of portKeys) {
      expect(Number(moved[k])).toBe(Number(plain[k]) + 1500);
      // Below the ephemeral range, where a client's closed connection can hold a port for a minute.
      expect(Number(moved[k])).toBeLessThan(32768);
    }
  });

  it('refuses an offset that is not an integer or pushes a port out of range', () => {
    expect(() => benchEnv({ RECUR_BENCH_PORT_OFFSET: '1.5' })).toThrow(/RECUR_BENCH_PORT_OFFSET/);
    expect(() => benchEnv({ RECUR_BENCH_PORT_OFFSET: 'x' })).toThrow(/RECUR_BENCH_PORT_OFFSET/);
    expect(() => benchEnv({ RECUR_BENCH_PORT_OFFSET: '30000' })).toThrow(/RECUR_BENCH_PORT_OFFSET/);
    expect(() => benchEnv({ RECUR_BENCH_PORT_OFFSET: '9000' })).toThrow(/below the ephemeral range/);
  });
});

describe('bench fan-out', () => {
  it('scripts a root whose second cell spawns n sub-agents by name, each answering with no cell', () => {
    const agents = fanOutScript(3);
    expect(Object.keys(agents)).toEqual(['root', 'c0', 'c1', 'c2']);
    expect(agents.root).toHaveLength(3);
    expect(agents.root[1]).toContain('rlm("answer at once", name=n) for n in ["c0","c1","c2"]');
    expect(agents.c2).toEqual(['answered']);
  });

  it('times the last child started and answered from the spawning cell, and names a child that logged neither', () => {
    const sessions = new Map([
      ['r', [{ type: 'CellRequested', ts: 100 }, { type: 'CellRequested', ts: 1000 }]],
      ['r/c0', [{ type: 'SessionStarted', ts: 1100 }, { type: 'SessionCompleted', ts: 1500 }]],
      ['r/c1', [{ type: 'SessionStarted', ts: 1300 }, { type: 'SessionCompleted', ts: 1400 }]],
    ]);
    expect(fanOutTimes(sessions, 'r', ['r/c0', 'r/c1'])).toEqual({ allStarted: 300, allAnswered: 500 });
    expect(() => fanOutTimes(sessions, 'r', ['r/c0', 'r/c9'])).toThrow(/r\/c9 logged no SessionStarted/);
  });
});
