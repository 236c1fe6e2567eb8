import type { StoredEvent } from '../../schemas';
import { formatReport } from '../../services/cli/commands/research-report';
import { busyTime } from '../../services/projector/busy-time';
import { researchReport } from '../../services/projector/research-report';

const T0 = 1_700_000_000_000;
const s = (sec: number) => T0 + sec * 1000;

/** One session's log: [seconds since T0, event] in seq order. */
const log = (sessionId: string, events: [number, Record<string, unknown>][]): StoredEvent[] => events.map(([sec, event], seq) => ({
  sessionId, parentId: sessionId.includes('/') ? sessionId.slice(0, sessionId.lastIndexOf('/')) : null, seq, ts: s(sec), type: event.type, event,
} as unknown as StoredEvent));

const started = (research = true) => ({
  type: 'SessionStarted', task: 't', name: 'n', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60,
  research: research ? { task: 'nqm-speedrun', recordId: 'r0-baseline', recordSteps: 1003, recordMean: 3.27519, recordN: 8 } : null,
});
const called = (latencySec: number, tokensIn = 100, tokensOut = 10, costUsd = 0.5) => ({
  type: 'ModelCalled', turn: 1, model: 'm', provider: 'p', tokensIn, tokensOut, costUsd, latencyMs: latencySec * 1000, response: 'r', stopReason: 'end_turn', toolCalls: [],
});
const jobStarted = (jobId: string) => ({ type: 'JobStarted', jobId, hostId: 'h' });
const jobEnded = (jobId: string) => ({ type: 'JobEnded', jobId, outcome: 'finished', exitCode: 0, seconds: 1, logTail: '', reason: '' });
const recorded = (jobId: string, kind: 'trial' | 'record', status: string, steps: number) => ({
  type: 'ExperimentRecorded', jobId, kind, idea: jobId, parent: null, problem: 'small', file: 'train.py', source: { sha256: 'a'.repeat(64), size: 1 }, status, steps,
  seeds: [1], values: [3.27], mean: 3.27, promising: false, configHash: null, frozenHash: null, reason: '',
});
const accepted = (jobId: string, steps: number) => ({
  type: 'RecordAccepted', jobId, steps, mean: 3.27, n: 8, configHash: 'c', previousId: 'r0-baseline', previousSteps: 1003, previousMean: 3.27519, pairwiseScore: 0.05, scaleUp: null,
});
const rejected = (jobId: string, steps: number) => ({
  type: 'RecordRejected', jobId, steps, mean: 3.28, clearsBar: false, reason: 'no', previousId: 'r0-baseline', previousSteps: 1003, pairwiseScore: null, scaleUp: null,
});

describe('busy time: model calls and jobs over a window (services/projector/busy-time.ts)', () => {
  it('counts overlapping and nested intervals once, splits model, jobs and both, and finds the longest idle stretch', () => {
    const t = busyTime({ start: 0, end: 100 }, [
      { kind: 'job', start: 10, end: 30 }, { kind: 'job', start: 20, end: 40 }, { kind: 'job', start: 22, end: 25 },
      { kind: 'model', start: 35, end: 45 }, { kind: 'model', start: 38, end: 42 }, { kind: 'model', start: 70, end: 72 },
    ]);
    expect(t).toEqual({
      wallMs: 100, idleMs: 10 + 25 + 28, modelOnlyMs: 5 + 2, jobsOnlyMs: 25, bothMs: 5, idleFraction: 0.63, longestIdle: { start: 72, end: 100, ms: 28 },
    });
  });

  it('clips intervals to the window and drops those outside it; touching intervals leave no idle gap', () => {
    const t = busyTime({ start: 100, end: 200 }, [
      { kind: 'job', start: 50, end: 120 }, { kind: 'model', start: 120, end: 150 }, { kind: 'job', start: 150, end: 400 }, { kind: 'model', start: 0, end: 90 }, { kind: 'job', start: 300, end: 310 },
    ]);
    expect(t).toMatchObject({ wallMs: 100, idleMs: 0, modelOnlyMs: 30, jobsOnlyMs: 70, bothMs: 0, idleFraction: 0, longestIdle: null });
  });

  it('counts an interval of no length (a model call without latency) as no busy time', () => {
    const t = busyTime({ start: 0, end: 10 }, [{ kind: 'model', start: 4, end: 4 }]);
    expect(t).toMatchObject({ idleMs: 10, idleFraction: 1, longestIdle: { start: 0, end: 10, ms: 10 } });
  });

  it('has no idle fraction over a window without length', () => {
    expect(busyTime({ start: 5, end: 5 }, [{ kind: 'job', start: 0, end: 10 }])).toEqual({
      wallMs: 0, idleMs: 0, modelOnlyMs: 0, jobsOnlyMs: 0, bothMs: 0, idleFraction: null, longestIdle: null,
    });
  });
});

/**
 * A root that ran two overlapping experiments (one accepted) and a sub-agent whose model call
 * fell inside them. Busy: model 6–10 s and 55–60 s, jobs 12–50 s, both 35–45 s; the root ends at 100 s.
 */
const TREE = [
  ...log('r1', [
    [0, started()], [10, called(4)], [10, { type: 'JobQueued', jobId: 'job-1' }], [12, jobStarted('job-1')], [20, jobStarted('job-2')],
    [40, jobEnded('job-1')], [40, recorded('job-1', 'trial', 'measured', 1003)],
    [50, jobEnded('job-2')], [50, recorded('job-2', 'record', 'accepted', 900)], [50, accepted('job-2', 900)],
    [60, called(5)], [100, { type: 'SessionCompleted', answer: 'done' }],
  ]),
  ...log('r1/a', [[30, { ...started(false), depth: 1 }], [45, called(10, 1000, 100, 2)], [46, { type: 'SessionCompleted', answer: 'x' }]]),
];

describe('the research report, folded from a tree\'s log (services/projector/research-report.ts)', () => {
  it('measures the idle fraction over the root\'s wall time: no job running and no model call of any session in flight', () => {
    const r = researchReport('r1', TREE);
    expect(r).toMatchObject({ startedAt: s(0), endedAt: s(100), experiments: 2, accepted: 1 });
    expect(r.time).toEqual({
      wallMs: 100_000, idleMs: 53_000, modelOnlyMs: 9_000, jobsOnlyMs: 28_000, bothMs: 10_000, idleFraction: 0.53, longestIdle: { start: s(60), end: s(100), ms: 40_000 },
    });
  });

  it('gives the record at the start and now, and the tree\'s tokens and cost in all and per accepted record', () => {
    const r = researchReport('r1', TREE);
    expect(r.task).toBe('nqm-speedrun');
    expect(r.recordAtStart).toMatchObject({ id: 'r0-baseline', steps: 1003 });
    expect(r.recordNow).toMatchObject({ id: 'job-2', steps: 900, ts: s(50) });
    expect(r.spent).toMatchObject({ tokensIn: 1200, tokensOut: 120, costUsd: 3, calls: 3 });
    expect(r.perAccepted).toEqual({ tokensIn: 1200, tokensOut: 120, costUsd: 3 });
    const third = { ...TREE[0], ts: s(70) };
    const two = researchReport('r1', [...TREE,
      { ...third, seq: 12, type: 'ExperimentRecorded', event: recorded('job-3', 'record', 'accepted', 800) },
      { ...third, seq: 13, type: 'RecordAccepted', event: accepted('job-3', 800) }] as StoredEvent[]);
    expect(two.accepted).toBe(2);
    expect(two.perAccepted).toEqual({ tokensIn: 600, tokensOut: 60, costUsd: 1.5 });
  });

  it('reads the same time from events in any order; a copied record adds none', () => {
    const shuffled = [...TREE].reverse();
    shuffled.push(TREE[1], TREE[4]);
    const r = researchReport('r1', shuffled);
    expect(r.time).toEqual(researchReport('r1', TREE).time);
  });

  it('runs a job with no end, and a root with no end, until the tree\'s last event', () => {
    const tree = [
      ...log('r1', [[0, started()], [5, jobStarted('job-1')], [8, called(2)]]),
      ...log('r1/a', [[9, { ...started(false), depth: 1 }], [20, { type: 'CellExecuted' }]]),
    ];
    const r = researchReport('r1', tree);
    expect(r).toMatchObject({ startedAt: s(0), endedAt: s(20), accepted: 0, perAccepted: null, recordNow: { id: 'r0-baseline' } });
    expect(r.time).toMatchObject({ idleMs: 5_000, jobsOnlyMs: 13_000, bothMs: 2_000, modelOnlyMs: 0, idleFraction: 0.25, longestIdle: { start: s(0), end: s(5) } });
  });

  it('counts a sub-agent\'s jobs as busy too, and a job queued but never started as nothing', () => {
    const tree = [
      ...log('r1', [[0, started()], [1, { type: 'JobQueued', jobId: 'job-1' }], [10, jobEnded('job-1')], [20, { type: 'SessionCompleted', answer: 'a' }]]),
      ...log('r1/a', [[2, { ...started(false), depth: 1 }], [4, jobStarted('job-1')], [8, jobEnded('job-1')]]),
    ];
    expect(researchReport('r1', tree).time).toMatchObject({ jobsOnlyMs: 4_000, idleMs: 16_000, idleFraction: 0.8 });
  });

  it('shows rejected candidates in the ledger but counts only RecordAccepted as records', () => {
    const tree = log('r1', [[0, started()], [1, jobStarted('job-1')], [3, jobEnded('job-1')], [3, recorded('job-1', 'record', 'rejected', 950)], [3, rejected('job-1', 950)]]);
    const r = researchReport('r1', tree);
    expect(r).toMatchObject({ experiments: 1, accepted: 0, perAccepted: null, recordNow: { id: 'r0-baseline' } });
    expect(r.ledger.rows[0].verdict).toMatchObject({ accepted: false });
  });

  it('has no idle fraction for a session that only started, and nothing at all for one never logged', () => {
    const only = researchReport('r1', log('r1', [[0, started()]]));
    expect(only).toMatchObject({ task: 'nqm-speedrun', experiments: 0, accepted: 0, startedAt: s(0), endedAt: s(0), perAccepted: null, recordNow: { id: 'r0-baseline' } });
    expect(only.time).toMatchObject({ wallMs: 0, idleFraction: null, longestIdle: null });
    const none = researchReport('r1', []);
    expect(none).toMatchObject({ task: null, startedAt: null, endedAt: null, spent: null, recordAtStart: null, recordNow: null, perAccepted: null });
    expect(none.time.idleFraction).toBeNull();
  });

  it('names no task for a session started without a research task', () => {
    expect(researchReport('r1', log('r1', [[0, started(false)], [5, called(1)]])).task).toBeNull();
  });
});

describe('the report as printed (recur research report)', () => {
  it('sums up the experiments, the record, the spend per accepted record and the idle time', () => {
    expect(formatReport(researchReport('r1', TREE))).toEqual([
      'report of r1: nqm-speedrun, 2 experiments (1 screen, 1 record candidate), 1 accepted record',
      'record: job-2 900 steps now, r0-baseline 1003 at the start (10.3% fewer steps)',
      'spent: 1,200 tokens in, 120 out, $3.0000 over 3 model calls; per accepted record: 1,200 in, 120 out, $3.0000',
      'time: idle 53.0% of 1m40s, longest idle 40.0s from +1m00s; busy with model calls only 9.0s, jobs only 28.0s, both 10.0s',
    ]);
  });

  it('says when no record was accepted and no time has passed', () => {
    const lines = formatReport(researchReport('r1', log('r1', [[0, started()]])));
    expect(lines[1]).toBe('record: r0-baseline 1003 steps now, r0-baseline 1003 at the start (unchanged)');
    expect(lines[2]).toContain('per accepted record: none (no record accepted)');
    expect(lines[3]).toBe('time: no wall time yet; busy with model calls only 0.0s, jobs only 0.0s, both 0.0s');
  });
});
