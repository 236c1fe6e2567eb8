import type { StoredEvent } from '../../schemas';
import { researchLedger } from '../../services/projector/research-ledger';
import { experimentEnd } from '../../workflows/research/experiment-end';
import { parseVerdict } from '../../workflows/research/judge-verdict';
import { ResearchBook } from '../../workflows/research/research-book';
import { experimentEndMessage } from '../../workflows/research/tell-asker';
import type { CurrentRecord, Experiment } from '../../workflows/research/research-messages';

const baseline: CurrentRecord = { id: 'r0-baseline', steps: 1003, mean: 3.27519, n: 8 };
const seeds = [0xc0ffee, 0xc0ffef];

/** A verdict line as the task's judge prints it (verify.py --json). */
const verdict = (over: Record<string, unknown> = {}) => JSON.stringify({
  accepted: false, clears_bar: true, promising: true, steps: 700, mean: 3.2741, reason: 'screen: mean 3.27410 < bar', n: 2, seeds, values: [3.2740, 3.2742],
  bar: 3.27, config_hash: 'c'.repeat(64), frozen_hash: 'f'.repeat(64), pairwise: null, scale_up: null, problem: 'small', ...over,
});

const row = (over: Partial<Experiment> = {}): Experiment => ({
  id: 'job-2', kind: 'trial', idea: 'tail EMA', parent: 'job-1', problem: 'small', file: 'train.py', source: { sha256: 'a'.repeat(64), size: 9 }, trials: 2, status: 'queued', steps: null, seeds: [], values: [], mean: null,
  promising: false, configHash: null, reason: '', against: null, notes: [], ...over,
});

const scaleUp = { large_steps: 3100, baseline_large_steps: 4503, baseline_small_steps: 1003, ratio_large: 0.688, ratio_small: 0.698, passed: true };
const pairwise = { previous_steps: 1003, previous_mean: 3.27519, previous_n: 8, score: 0.05, threshold: 0.01236, passed: true };
const candidate = (over: Record<string, unknown> = {}) => verdict({ accepted: true, promising: false, n: 8, seeds: Array.from({ length: 8 }, (_, i) => 0xc0ffee + i), values: Array(8).fill(3.2741), pairwise, scale_up: scaleUp, ...over });

describe('the host\'s judge verdict', () => {
  it('is read from the last line of the judge run\'s output, field by field', () => {
    const v = parseVerdict(`some warning\n${verdict()}\n`);
    expect(v).toMatchObject({ accepted: false, clearsBar: true, promising: true, steps: 700, mean: 3.2741, n: 2, seeds, configHash: 'c'.repeat(64), pairwiseScore: null, scaleUp: null });
    expect(parseVerdict(candidate())?.scaleUp).toEqual({ largeSteps: 3100, baselineLargeSteps: 4503, baselineSmallSteps: 1003, ratioLarge: 0.688, ratioSmall: 0.698, passed: true });
  });

  it('is no verdict when the line is not one: nothing of such a run is counted', () => {
    for (const bad of ['', 'Traceback (most recent call last):', '[1, 2]', verdict({ accepted: 'yes' }), verdict({ values: [1] }), verdict({ mean: 'NaN' }),
      verdict({ seeds: [1.5, 2] }), verdict({ pairwise: { score: 'high' } }), verdict({ scale_up: { passed: true } }), `${verdict()}\ntrailing words`]) {
      expect(parseVerdict(bad)).toBeNull();
    }
  });
});

describe('an experiment\'s end (pure)', () => {
  it('logs a trial as measured with the judge\'s numbers; the record stays', () => {
    const end = experimentEnd(row(), baseline, { outcome: 'finished', reason: '', logTail: verdict() });
    expect(end.record).toBeNull();
    expect(end.events).toEqual([expect.objectContaining({ type: 'ExperimentRecorded', jobId: 'job-2', kind: 'trial', status: 'measured', steps: 700, seeds, values: [3.2740, 3.2742], promising: true, parent: 'job-1', frozenHash: 'f'.repeat(64), by: null })]);
    // The row names the session that asked, a sub-agent's included.
    expect(experimentEnd(row({ by: 's1/gen1' }), baseline, { outcome: 'finished', reason: '', logTail: verdict() }).events[0]).toMatchObject({ by: 's1/gen1' });
  });

  it('counts nothing of a job that did not finish, or whose judge printed no verdict', () => {
    for (const [outcome, logTail, reason] of [['cancelled', verdict(), /the job cancelled \(preempted\): nothing of it is counted/], ['timed_out', '', /timed out/], ['finished', 'boom', /printed no verdict/]] as const) {
      const end = experimentEnd(row(), baseline, { outcome, reason: outcome === 'cancelled' ? 'preempted' : '', logTail });
      expect(end.events[0]).toMatchObject({ type: 'ExperimentRecorded', status: 'failed', seeds: [], values: [], mean: null, steps: null, promising: false });
      expect((end.events[0] as { reason: string }).reason).toMatch(reason);
    }
    const candidateEnd = experimentEnd(row({ kind: 'record', against: 'r0-baseline' }), baseline, { outcome: 'failed', reason: 'exited 3', logTail: candidate() });
    expect(candidateEnd.record).toBeNull();
    expect(candidateEnd.events.map((e) => e.type)).toEqual(['ExperimentRecorded', 'RecordRejected']);
  });

  it('accepts a candidate only on the judge\'s word against the record in force, which it then replaces', () => {
    const accepted = experimentEnd(row({ kind: 'record', against: 'r0-baseline' }), baseline, { outcome: 'finished', reason: '', logTail: candidate() });
    expect(accepted.record).toEqual({ id: 'job-2', steps: 700, mean: 3.2741, n: 8 });
    expect(accepted.events[1]).toEqual(expect.objectContaining({ type: 'RecordAccepted', jobId: 'job-2', previousId: 'r0-baseline', previousSteps: 1003, pairwiseScore: 0.05, scaleUp: expect.objectContaining({ passed: true }) }));

    const rejected = experimentEnd(row({ kind: 'record', against: 'r0-baseline' }), baseline, { outcome: 'finished', reason: '', logTail: candidate({ accepted: false, reason: 'illegal lever: grad_evals_per_step=2' }) });
    expect(rejected.record).toBeNull();
    expect(rejected.events[1]).toEqual(expect.objectContaining({ type: 'RecordRejected', clearsBar: true, reason: 'illegal lever: grad_evals_per_step=2' }));

    // Judged against a record that was beaten while it ran: it has not beaten the one in force.
    const beaten = { id: 'job-1', steps: 680, mean: 3.2740, n: 8 };
    const stale = experimentEnd(row({ kind: 'record', against: 'r0-baseline' }), beaten, { outcome: 'finished', reason: '', logTail: candidate() });
    expect(stale.record).toBeNull();
    expect(stale.events[1]).toEqual(expect.objectContaining({ type: 'RecordRejected', previousId: 'job-1', reason: expect.stringContaining('the record changed while it was judged') }));
  });

  it('the book releases the feed\'s records on the clock: once each, in force only when they have fewer steps, kept across a carry', () => {
    const release = (id: string, afterSeconds: number, steps: number) => ({ id, afterSeconds, steps, mean: 3.275, n: 8, config: '{"lr": 1.0}', note: `note ${id}` });
    const spec = { task: 'nqm-speedrun', knowledge: 'weights-only', problem: 'small', record: baseline, releases: [release('r1', 60, 992), release('r2', 120, 995), release('r3', 600, 600)] };
    const book = new ResearchBook(spec);
    const t0 = 1_000_000;
    expect(book.nextRelease(t0)).toBe(t0 + 60_000);
    expect(book.releaseDue(t0, t0 + 59_999).events).toEqual([]);
    const due = book.releaseDue(t0, t0 + 130_000);
    expect(due.events).toEqual([
      { type: 'RecordReleased', recordId: 'r1', releaseAfterSeconds: 60, steps: 992, mean: 3.275, n: 8, config: '{"lr": 1.0}', note: 'note r1', inForce: true },
      // 995 steps is not below r1's 992: the record in force stays.
      expect.objectContaining({ recordId: 'r2', inForce: false }),
    ]);
    expect(book.record.id).toBe('r0-baseline');
    due.commit();
    expect(book.record).toEqual({ id: 'r1', steps: 992, mean: 3.275, n: 8 });
    expect(book.nextRelease(t0)).toBe(t0 + 600_000);
    const carried = new ResearchBook(spec, book.carry());
    expect(carried.releaseDue(t0, t0 + 130_000).events).toEqual([]);
    expect(carried.releaseDue(t0, t0 + 600_000).events).toEqual([expect.objectContaining({ recordId: 'r3', inForce: true })]);
    // A session started before feeds were released, or on a feed with nothing later, waits for none.
    expect(new ResearchBook({ ...spec, releases: undefined }).nextRelease(t0)).toBeNull();
  });

  it('the book applies an end once: a second report of the same job adds nothing', () => {
    const book = new ResearchBook({ task: 'nqm-speedrun', knowledge: 'weights-only', problem: 'small', record: baseline });
    book.add(row({ kind: 'record', against: 'r0-baseline' }));
    const first = book.experimentEnded('job-2', { outcome: 'finished', reason: '', logTail: candidate() })!;
    first.commit();
    expect(book.record.id).toBe('job-2');
    expect(book.experimentEnded('job-2', { outcome: 'finished', reason: '', logTail: candidate() })).toBeNull();
    expect(book.experimentEnded('job-9', { outcome: 'finished', reason: '', logTail: candidate() })).toBeNull();
    expect(new ResearchBook({ task: 'nqm-speedrun', knowledge: 'weights-only', problem: 'small', record: baseline }, book.carry()).record.id).toBe('job-2');
  });
});

describe('the end of a sub-agent\'s experiment, as the root tells it', () => {
  it('is one message per job holding the host\'s notes on every event logged for it', () => {
    const trial = experimentEnd(row({ by: 's1/gen1' }), baseline, { outcome: 'finished', reason: '', logTail: verdict() });
    const told = experimentEndMessage('s1', 'job-2', trial.events);
    expect(told).toMatchObject({ messageId: 's1#job-2', from: 's1' });
    expect(told.text).toBe('[experiment job-2 (trial, asked by s1/gen1) measured: steps 700, mean 3.27410 over 2 seeds, promising: screen: mean 3.27410 < bar; ledger.query() has the row]');
    const record = experimentEnd(row({ kind: 'record', against: 'r0-baseline', by: 's1/exec' }), baseline, { outcome: 'finished', reason: '', logTail: candidate() });
    const lines = experimentEndMessage('s1', 'job-2', [{ type: 'JobEnded', jobId: 'job-2', outcome: 'finished', exitCode: 0, seconds: 1, logTail: '', reason: '' }, ...record.events]).text.split('\n');
    expect(lines).toEqual([expect.stringMatching(/^\[experiment job-2 \(record, asked by s1\/exec\) /), expect.stringMatching(/^\[record job-2 ACCEPTED by the host's judge: 700 steps/)]);
  });
});

describe('the ledger table, folded from the log', () => {
  const stored = (seq: number, event: unknown, sessionId = 's1'): StoredEvent => ({ sessionId, seq, ts: 1000 + seq, event, type: (event as { type: string }).type } as unknown as StoredEvent);
  it('has a row per experiment with its trials, notes and verdict, and the record over time; other sessions and copies are not counted', () => {
    // The screen is a generator sub-agent's (its research calls go into the root's ledger), the note a judge sub-agent's.
    const trial = experimentEnd(row({ by: 's1/gen1' }), baseline, { outcome: 'finished', reason: '', logTail: verdict() }).events[0];
    const [rec, acc] = experimentEnd(row({ id: 'job-3', kind: 'record', against: 'r0-baseline' }), baseline, { outcome: 'finished', reason: '', logTail: candidate() }).events;
    const log = [
      stored(0, { type: 'SessionStarted', research: { task: 'nqm-speedrun', knowledge: 'archive', recordId: 'r0-baseline', recordSteps: 1003, recordMean: 3.27519, recordN: 8 } }),
      stored(1, trial), stored(1, trial), stored(2, { type: 'ExperimentAnnotated', jobId: 'job-2', note: 'EMA helps; stack it', by: 's1/judge' }),
      stored(3, rec), stored(4, acc), stored(0, trial, 's1/child'),
    ];
    const l = researchLedger('s1', log);
    expect(l).toMatchObject({ task: 'nqm-speedrun', knowledge: 'archive' });
    expect(l.rows.map((r) => [r.id, r.kind, r.status, r.trials.length])).toEqual([['job-2', 'trial', 'measured', 2], ['job-3', 'record', 'accepted', 8]]);
    expect(l.rows[0].trials[1]).toEqual({ seed: 0xc0ffef, value: 3.2742 });
    expect(l.rows.map((r) => r.by)).toEqual(['s1/gen1', null]);
    expect(l.rows[0].notes).toEqual([{ note: 'EMA helps; stack it', by: 's1/judge' }]);
    expect(l.rows[1].verdict).toMatchObject({ accepted: true, previousId: 'r0-baseline', pairwiseScore: 0.05 });
    expect(l.records.map((r) => [r.id, r.steps])).toEqual([['r0-baseline', 1003], ['job-3', 700]]);
  });
});
