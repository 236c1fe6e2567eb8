import type { RecurEventInput, StoredEvent } from '../../schemas';
import { firstLine, formatEventLine, formatProblemLine, shortSessionId } from '../../services/cli/format-event';
import { sampleSession, SAMPLE_EVENTS } from './event-samples';

const ROOT = 'r0lqx3k9z1a2b3c';
const line = (event: RecurEventInput, sessionId = ROOT): string => formatEventLine(sampleSession(sessionId, [event]).records[0] as StoredEvent);

describe('event line formatting', () => {
  it('shortens the root id to its random tail and keeps child names', () => {
    expect(shortSessionId(ROOT)).toBe('1a2b3c');
    expect(shortSessionId(`${ROOT}/helper/sub`)).toBe('1a2b3c/helper/sub');
    expect(shortSessionId('r1')).toBe('r1');
    expect(shortSessionId('user')).toBe('user');
  });

  it('takes the first non-blank line and marks what it leaves out', () => {
    expect(firstLine('\n  hello  \nworld')).toBe('hello …');
    expect(firstLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(firstLine('')).toBe('');
  });

  it('shows one line per event with session, seq, type and key facts', () => {
    const lines = sampleSession(ROOT).records.map((r) => formatEventLine(r as StoredEvent));
    expect(lines).toEqual([
      '1a2b3c #0 SessionStarted  root scripted depth 0: "add 2 and 2"',
      '1a2b3c #1 ModelCalled  turn 1 scripted/scripted 120+30 tok $0.0012 0.0s → 1 tool call',
      '1a2b3c #2 CellRequested  "print(2+2)"',
      '1a2b3c #3 CellExecuted  ok 0.0s → "4"',
      '1a2b3c #4 SubagentSpawned  helper (scripted): "check it"',
      '1a2b3c #5 SessionCompleted  answer: "forty-two"',
    ]);
    expect(lines).toHaveLength(SAMPLE_EVENTS.length);
    for (const l of lines) expect(l).not.toContain('\n');
  });

  it("shows a continued root's rounds, its end for good and an operator's controls", () => {
    expect(line({ type: 'SessionResumed', messageId: 'user#ab', from: 'user', round: 2, unloaded: true, idleSeconds: 95 })).toBe(
      '1a2b3c #0 SessionResumed  round 2 by user user#ab after 95s idle (kernel reloaded)');
    expect(line({ type: 'TaskEnded', round: 2, status: 'completed', answer: '42\nand more' })).toBe('1a2b3c #0 TaskEnded  round 2 completed: answer: "42 …"');
    expect(line({ type: 'TaskEnded', round: 3, status: 'failed', reason: 'turn limit' })).toBe('1a2b3c #0 TaskEnded  round 3 failed: turn limit');
    expect(line({ type: 'SessionClosed', reason: 'the session was cancelled', round: 3, idle: true })).toBe('1a2b3c #0 SessionClosed  after round 3 (idle): the session was cancelled');
    expect(line({ type: 'ModelSwitched', model: 'anthropic/claude-sonnet-4-5', previous: 'openai/gpt-4o' })).toBe('1a2b3c #0 ModelSwitched  openai/gpt-4o → anthropic/claude-sonnet-4-5');
    expect(line({ type: 'ModelSwitched', model: 'openai/gpt-4o', previous: 'anthropic/claude-sonnet-4-5', reason: 'backup', throttledMs: 600_000 }))
      .toBe('1a2b3c #0 ModelSwitched  anthropic/claude-sonnet-4-5 → openai/gpt-4o (backup, after 600.0s throttled)');
    expect(line({
      type: 'ModelThrottled', provider: 'anthropic', model: 'anthropic/claude-sonnet-4-5', status: 429, reason: 'HTTP 429: rate_limit_error: slow down',
      resetAt: Date.parse('2030-01-01T00:01:30Z'), waitMs: 90_000, attempt: 2, idempotencyKey: 'recur:r1:call:4',
    })).toBe('1a2b3c #0 ModelThrottled  anthropic/claude-sonnet-4-5 HTTP 429, waits 90.0s until 2030-01-01T00:01:30.000Z (attempt 2): "HTTP 429: rate_limit_error: slow down"');
    expect(line({
      type: 'Compacted', fromSeq: 1, toSeq: 9, droppedTurns: 3, droppedChars: 900, summary: 's', tokensBefore: 300, tokensAfter: 40, tokensIn: 1, tokensOut: 1, costUsd: 0, manual: true,
    })).toBe('1a2b3c #0 Compacted  manual seq 1-9 (3 turns, 900 chars) → 300→40 tok');
  });

  it('shows failures, errors, messages and child outcomes', () => {
    expect(line({ type: 'SessionFailed', kind: 'max_turns', reason: 'turn limit 50 reached\nmore' })).toBe(
      '1a2b3c #0 SessionFailed  max_turns: turn limit 50 reached …');
    expect(line({
      type: 'CellExecuted', requestId: 'x/1', code: '1/0', status: 'error', outputs: 'Traceback...\nZeroDivisionError', durationMs: 1500,
      errorName: 'ZeroDivisionError', errorValue: 'division by zero',
    })).toBe('1a2b3c #0 CellExecuted  error 1.5s ZeroDivisionError: division by zero → "Traceback... …"');
    expect(line({ type: 'MessageSent', messageId: 'm1', from: `${ROOT}/a`, to: `${ROOT}/b`, text: 'hi b' }, `${ROOT}/a`)).toBe(
      '1a2b3c/a #0 MessageSent  1a2b3c/a → 1a2b3c/b: "hi b"');
    expect(line({ type: 'MessageDelivered', messageId: 'user#1', from: 'user', to: ROOT, text: 'stop now', via: 'prompt' })).toBe(
      '1a2b3c #0 MessageDelivered  user → 1a2b3c via prompt: "stop now"');
    expect(line({ type: 'SubagentCompleted', childId: `${ROOT}/a`, status: 'failed', answer: '', error: 'kernel died' })).toBe(
      '1a2b3c #0 SubagentCompleted  1a2b3c/a failed: kernel died');
    expect(line({
      type: 'ModelCalled', turn: 2, model: 'gpt-4o', provider: 'openai', tokensIn: 1000, tokensOut: 20, costUsd: 0.01234,
      latencyMs: 2345, response: 'The answer is 4.', stopReason: 'stop',
    })).toBe('1a2b3c #0 ModelCalled  turn 2 openai/gpt-4o 1000+20 tok $0.0123 2.3s → "The answer is 4."');
  });

  it("says what a kernel's snapshot, restore, unload and reload, a re-tasked or refused child and a harness edit were", () => {
    const manifest = { sha256: 'a'.repeat(64), size: 10 };
    expect(line({ type: 'KernelSnapshotted', manifest, coversSeq: 7, variables: 2, bytes: 300, unsaved: [{ name: 'g', reason: 'generator' }], oversize: [], durationMs: 9 }))
      .toBe('1a2b3c #0 KernelSnapshotted  2 variables 300 bytes covers #7 (1 left out)');
    expect(line({ type: 'KernelRestored', manifest, fromSnapshotSeq: 7, restored: ['x'], failed: [], replayedCells: ['r/9', 'r/11'], interruptedCell: null, durationMs: 1500 }))
      .toBe('1a2b3c #0 KernelRestored  1 restored, 2 cell(s) replayed 1.5s');
    expect(line({ type: 'SessionUnloaded', manifest, coversSeq: 7, idleSeconds: 600 })).toBe('1a2b3c #0 SessionUnloaded  after 600s idle, snapshot covers #7');
    expect(line({ type: 'SessionReloaded', messageId: 'user#1', from: 'user', unloadedSeq: 8 })).toBe('1a2b3c #0 SessionReloaded  by user user#1');
    expect(line({ type: 'SubagentTasked', childId: `${ROOT}/a`, name: 'a', task: 'again', messageId: 'm1' })).toBe('1a2b3c #0 SubagentTasked  a: "again"');
    expect(line({ type: 'SpawnRefused', name: 'b', limit: 'max_depth', reason: 'depth 3 is past 2' })).toBe('1a2b3c #0 SpawnRefused  b at max_depth: depth 3 is past 2');
    expect(line({
      type: 'HarnessEdited', action: 'create', kind: 'memory', name: 'notes', before: null, after: '"x"', trigger: { eventIds: [], reason: '' },
      source: 'cli', requestedBy: null, result: 'refused', error: 'global scope needs approval', revertOf: null, refineId: null,
    })).toBe('1a2b3c #0 HarnessEdited  create memory notes refused by cli: global scope needs approval');
  });

  it('formats problems with where they are', () => {
    expect(formatProblemLine({ kind: 'problem', problem: 'undecodable', partition: 2, offset: '40', key: 'r1', reason: 'bad magic' }))
      .toBe('problem (undecodable) at partition 2 offset 40: bad magic');
  });
});

describe('long-run event lines', () => {
  const line = (event: RecurEventInput): string => formatEventLine(sampleSession('r1', [event]).records[0] as StoredEvent);

  it("says a tree's budget and a child's slice, with only the measures set", () => {
    expect(line({ type: 'BudgetSet', scope: 'tree', tokens: 8000, costUsd: 2.5, seconds: null, turns: 100, note: "the run's budget flags" }))
      .toBe('r1 #0 BudgetSet  tree budget 8000 tok, $2.5, 100 turns: the run\'s budget flags');
    expect(line({ type: 'BudgetSet', scope: 'slice', tokens: 190, askedTokens: 1000, note: 'the slice was capped at what remains' }))
      .toBe('r1 #0 BudgetSet  slice budget 190 tok: the slice was capped at what remains');
  });

  it('says what happened to a goal, a schedule, a gate and the context in one line each', () => {
    expect(line({
      type: 'GoalChanged', change: 'refused', objective: 'beat 3.28', openEnded: true, status: 'active',
      tokenBudget: null, secondsBudget: null, costBudgetUsd: null, tokensUsed: 900, costUsd: 0, secondsUsed: 5, reason: 'open-ended goal',
    })).toBe('r1 #0 GoalChanged  refused → active (open-ended) 900 tok: "open-ended goal"');
    expect(line({ type: 'ContinuationInjected', reason: 'wrap_up', count: 4, text: '[wrap-up] …' })).toBe('r1 #0 ContinuationInjected  #4 wrap_up');
    expect(line({ type: 'ReplyRejected', problem: 'cut_off', inARow: 2, note: '[your reply was cut off at the token limit] Keep replies shorter' }))
      .toBe('r1 #0 ReplyRejected  cut_off (2 in a row): [your reply was cut off at the token limit] Keep replies shorter');
    expect(line({ type: 'ScheduleFired', scheduleId: 's2', instruction: 'check the run', dueAt: 0, missed: 3, runCount: 7 }))
      .toBe('r1 #0 ScheduleFired  s2 run 7 (+3 missed): "check the run"');
    expect(line({ type: 'JobQueued', jobId: 'job-2', command: 'python train.py', cpus: 2, seeds: [1, 2], timeoutSeconds: 600, executor: 'local' }))
      .toBe('r1 #0 JobQueued  job-2 2 cpu seeds 1,2 timeout 600s: "python train.py"');
    expect(line({ type: 'JobPreempted', jobId: 'job-2', requeued: true, reason: 'preempted by a higher-priority job', slurmId: '41' }))
      .toBe('r1 #0 JobPreempted  job-2 (slurm 41) requeued: preempted by a higher-priority job');
    expect(line({ type: 'JobEnded', jobId: 'job-2', outcome: 'failed', exitCode: 3, seconds: 12.34, logTail: '', reason: 'exited 3 on seed 2' }))
      .toBe('r1 #0 JobEnded  job-2 failed (exit 3) 12.3s: exited 3 on seed 2');
    const row = {
      type: 'ExperimentRecorded' as const, jobId: 'job-3', kind: 'trial' as const, idea: 'tail EMA', parent: 'job-1', problem: 'small', file: 'train.py', source: { sha256: 'a'.repeat(64), size: 9 }, status: 'measured' as const,
      steps: 700, seeds: [1], values: [3.26], mean: 3.26, promising: true, configHash: 'c'.repeat(64), frozenHash: 'f'.repeat(64), reason: 'screen',
    };
    expect(line(row)).toBe('r1 #0 ExperimentRecorded  job-3 trial measured steps 700 mean 3.26000 over 1 promising: "tail EMA"');
    const scaleUp = { largeSteps: 3000, baselineLargeSteps: 4503, baselineSmallSteps: 1003, ratioLarge: 0.666, ratioSmall: 0.698, passed: true };
    expect(line({ type: 'RecordAccepted', jobId: 'job-4', steps: 700, mean: 3.2741, n: 8, configHash: 'c', previousId: 'r0-baseline', previousSteps: 1003, previousMean: 3.2752, pairwiseScore: 0.1234, scaleUp }))
      .toBe('r1 #0 RecordAccepted  job-4 700 steps mean 3.27410 beats r0-baseline (1003 steps), pairwise 0.1234, scale-up 0.666 ≤ 0.698+0.05');
    expect(line({ type: 'RecordRejected', jobId: 'job-5', steps: 570, mean: 3.27, clearsBar: true, reason: 'illegal lever: grad_evals_per_step=2', previousId: 'job-4', previousSteps: 700, pairwiseScore: null, scaleUp: null }))
      .toBe('r1 #0 RecordRejected  job-5 570 steps mean 3.27000 vs job-4: illegal lever: grad_evals_per_step=2');
    expect(line({ type: 'GateChecked', command: 'npm test', passed: false, exitCode: null, output: '', durationMs: 300_000, attempt: 2 }))
      .toBe('r1 #0 GateChecked  failed (killed) 300.0s: "npm test"');
    expect(line({ type: 'Compacted', fromSeq: 1, toSeq: 40, droppedTurns: 12, droppedChars: 90000, summary: 's', tokensBefore: 30000, tokensAfter: 4000, tokensIn: 1, tokensOut: 1, costUsd: 0 }))
      .toBe('r1 #0 Compacted  seq 1-40 (12 turns, 90000 chars) → 30000→4000 tok');
  });
});
