import { buildPrompt } from '../../activities/prompt/build-prompt';
import { BASE_SYSTEM_PROMPT } from '../../activities/prompt/system-prompt';
import { encodeEventBatch, ZERO_HASH, type RecurEventInput } from '../../schemas';

function log(sessionId: string, events: RecurEventInput[]) {
  return encodeEventBatch({
    sessionId, rootId: sessionId.split('/')[0], parentId: sessionId.includes('/') ? sessionId.slice(0, sessionId.lastIndexOf('/')) : null,
    fromSeq: 0, prevHash: ZERO_HASH, events: events.map((event, i) => ({ ts: 1_700_000_000_000 + i, event })),
  }).records;
}

const started = (task: string, parentId: string | null = null): RecurEventInput => ({
  type: 'SessionStarted', task, name: parentId ? 'kid' : 'root', model: 'scripted:x', parentId, depth: parentId ? 1 : 0,
  maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60,
});
const called = (turn: number, response: string, toolCalls: Array<{ id: string; name: string; arguments: string }> = []): RecurEventInput => ({
  type: 'ModelCalled', turn, model: 'm', provider: 'p', tokensIn: 1, tokensOut: 1, costUsd: 0, latencyMs: 1, response, toolCalls, stopReason: 'end',
});

describe('prompts are rebuilt from the session log alone', () => {
  it('turns task, fenced code, cell output and delivered messages into the conversation', () => {
    const events = log('r', [
      started('add numbers'),
      called(0, 'Let me compute.\n```python\nprint(1+2)\n```'),
      { type: 'CellRequested', cellId: 'r/2', code: 'print(1+2)' },
      { type: 'CellExecuted', requestId: 'r/2', code: 'print(1+2)', status: 'ok', outputs: '3', durationMs: 5 },
      { type: 'MessageDelivered', messageId: 'r/kid#m1', from: 'r/kid', to: 'r', text: 'hi', via: 'prompt' },
      { type: 'MessageDelivered', messageId: 'r/kid#m2', from: 'r/kid', to: 'r', text: 'taken in a cell', via: 'kernel' },
    ]);
    const prompt = buildPrompt(events);
    expect(prompt.system).toBe(BASE_SYSTEM_PROMPT);
    expect(prompt.messages).toEqual([
      { role: 'user', content: 'add numbers' },
      { role: 'assistant', content: 'Let me compute.\n```python\nprint(1+2)\n```', code: 'print(1+2)' },
      { role: 'tool', content: '3' },
      { role: 'user', content: '[message from r/kid] hi' },
    ]);
  });

  it('shows a job\'s end as a host message, after the result of a cell that was running when it ended', () => {
    const ended = (jobId: string, outcome: 'finished' | 'failed', reason = ''): RecurEventInput => ({
      type: 'JobEnded', jobId, outcome, exitCode: outcome === 'finished' ? 0 : 2, seconds: 1.5, logTail: `${jobId} out`, reason,
    });
    const events = log('r', [
      started('train'),
      called(0, '```python\nprint(1)\n```', [{ id: 't1', name: 'python', arguments: '{"code":"print(1)"}' }]),
      { type: 'CellRequested', cellId: 'r/2', code: 'print(1)', toolCallId: 't1' },
      ended('job-1', 'failed', 'exited 2'),
      { type: 'CellExecuted', requestId: 'r/2', code: 'print(1)', status: 'ok', outputs: '1', durationMs: 5 },
      called(1, 'Waiting for job-2.'),
      ended('job-2', 'finished'),
    ]);
    expect(buildPrompt(events).messages.slice(1)).toEqual([
      expect.objectContaining({ role: 'assistant', toolCallId: 't1' }),
      { role: 'tool', content: '1', toolCallId: 't1' },
      { role: 'user', content: '[job job-1 failed: exited 2; jobs.logs("job-1") has its whole output]\nlast output:\njob-1 out' },
      { role: 'assistant', content: 'Waiting for job-2.' },
      { role: 'user', content: '[job job-2 finished in 1.5 s; jobs.logs("job-2") has its whole output]\nlast output:\njob-2 out' },
    ]);
  });

  it('keeps native tool-call ids paired with their results, and tells the model about errors and timeouts', () => {
    const events = log('r', [
      started('t'),
      called(0, '', [{ id: 'call_1', name: 'python', arguments: JSON.stringify({ code: '1/0' }) }]),
      { type: 'CellRequested', cellId: 'r/2', code: '1/0', toolCallId: 'call_1' },
      { type: 'CellExecuted', requestId: 'r/2', code: '1/0', status: 'error', outputs: '', durationMs: 1, errorName: 'ZeroDivisionError', errorValue: 'division by zero', traceback: 'Traceback…\nZeroDivisionError: division by zero' },
      called(1, '```python\nwhile True: pass\n```'),
      { type: 'CellRequested', cellId: 'r/5', code: 'while True: pass' },
      { type: 'CellExecuted', requestId: 'r/5', code: 'while True: pass', status: 'timeout', outputs: '', durationMs: 2000 },
    ]);
    const [, assistant, toolResult, , timeout] = buildPrompt(events).messages;
    expect(assistant).toEqual({ role: 'assistant', content: '', code: '1/0', toolCallId: 'call_1' });
    expect(toolResult).toEqual({ role: 'tool', content: 'Traceback…\nZeroDivisionError: division by zero', toolCallId: 'call_1' });
    expect(timeout.content).toMatch(/time limit and was interrupted/);
  });

  it('tells a sub-agent who started it', () => {
    const [first] = buildPrompt(log('r/kid', [started('review the diff', 'r')])).messages;
    expect(first.content).toMatch(/You are sub-agent "kid" \(session r\/kid\), started by r\. Your task:\n\nreview the diff/);
  });
});
