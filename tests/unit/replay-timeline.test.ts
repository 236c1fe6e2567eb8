import type { RecurEventInput, StoredEvent } from '../../schemas';
import { formatTimeline, timelineJson } from '../../services/cli/commands/replay';
import { formatEventLine } from '../../services/cli/format-event';
import { promptSources } from '../../services/projector/prompt-sources';
import { blobRefs, buildTimeline } from '../../services/projector/timeline';
import { chain, ev } from '../helpers/replay-tree-fixture';

const BLOB = { sha256: 'ab'.repeat(32), size: 20000 };

/** Root: a tool-call turn whose cell output went to a blob, a child, messages by prompt and kernel, a second turn. */
function tree(): StoredEvent[] {
  const root = chain('r', [
    [1000, ev.started('root', 0)],
    [1100, {
      type: 'ModelCalled', turn: 1, model: 'm', provider: 'p', tokensIn: 100, tokensOut: 20, costUsd: 0.5, latencyMs: 1500,
      response: 'Spawning a helper.', stopReason: 'tool_use', toolCalls: [{ id: 't1', name: 'python', arguments: '{"code":"rlm(\\"x\\")"}' }],
    }],
    [1200, ev.request('h = rlm("x")')],
    [1250, ev.spawned('r/a')],
    [1400, { type: 'CellExecuted', requestId: 'r/2', code: 'h = rlm("x")', status: 'ok', outputs: 'long…', outputsBlob: BLOB, durationMs: 150 }],
    [1500, ev.delivered('r/a#m1', 'r/a', 'r')],
    [1510, { type: 'MessageDelivered', messageId: 'user#1', from: 'user', to: 'r', text: 'read in a cell', via: 'kernel' }],
    [1600, ev.model(2, 'The answer is 42.')],
    [1700, ev.completed('42')],
  ]).records;
  const child = chain('r/a', [[1260, ev.started('a', 1, 'r')], [1300, ev.sent('r/a#m1', 'r/a', 'r')], [1350, ev.completed('x')]]).records;
  return [...child, ...root];
}

describe('replay timeline', () => {
  test("a prompt's provenance is its session's task, earlier replies and cells, and messages delivered by prompt", () => {
    const sources = promptSources(tree());
    expect(sources('r/1')!.map((e) => e.eventId)).toEqual(['r/0']);
    expect(sources('r/7')!.map((e) => e.eventId)).toEqual(['r/0', 'r/1', 'r/4', 'r/5']);
    expect(sources('r/0')).toBeUndefined();
  });

  test('entries carry depth below the replayed session, time since the first event and blob refs', () => {
    const timeline = buildTimeline('r', tree());
    expect(timeline.map((x) => x.event.eventId)).toEqual([
      'r/0', 'r/1', 'r/2', 'r/3', 'r/a/0', 'r/a/1', 'r/a/2', 'r/4', 'r/5', 'r/6', 'r/7', 'r/8',
    ]);
    const child = timeline.find((x) => x.event.eventId === 'r/a/1')!;
    expect(child).toMatchObject({ depth: 1, offsetMs: 300 });
    expect(timeline.find((x) => x.event.eventId === 'r/4')!.blobs).toEqual([{ field: 'outputsBlob', ref: BLOB }]);
    expect(buildTimeline('r/a', tree().filter((e) => e.sessionId === 'r/a'))[0]).toMatchObject({ depth: 0, offsetMs: 0 });
  });

  test('human output is an indented timeline with provenance, response previews and blob refs', () => {
    const lines = formatTimeline('r', buildTimeline('r', tree()));
    expect(lines[0]).toBe('replay of r: 2 sessions, 12 events over 0.700s from 1970-01-01T00:00:01.000Z');
    expect(lines).toContain('   +0.100s r #1 ModelCalled  turn 1 p/m 100+20 tok $0.5000 1.5s → 1 tool call');
    expect(lines).toContain('               prompt ← task #0');
    expect(lines).toContain('               response: "Spawning a helper."');
    expect(lines).toContain(`               outputsBlob: blob ${'ab'.repeat(8)} (20000 bytes)`);
    expect(lines).toContain('   +0.300s   r/a #1 MessageSent  r/a → r: "hello from r/a"');
    expect(lines).toContain('               prompt ← reply #1, cell #4, message #5 from r/a (+1 earlier)');
  });

  test('--json lines are the stored events in causal order, a model call naming its prompt sources', () => {
    const timeline = buildTimeline('r', tree());
    const lines = timeline.map(timelineJson).map((l) => JSON.parse(l) as StoredEvent & { promptFrom?: string[] });
    expect(lines.map((l) => l.eventId)).toEqual(timeline.map((x) => x.event.eventId));
    expect(lines[10]).toMatchObject({ eventId: 'r/7', type: 'ModelCalled', promptFrom: ['r/0', 'r/1', 'r/4', 'r/5'] });
    expect(lines[0]).toEqual(JSON.parse(JSON.stringify(timeline[0].event)));
    expect(lines[0]).not.toHaveProperty('promptFrom');
  });

  test("a model call's provenance names the workspace files its prompt showed, by hash, and their blobs", () => {
    const agents = { path: 'AGENTS.md', sha256: 'cd'.repeat(32), bytes: 812, shown: { sha256: 'cd'.repeat(32), size: 812 } };
    const claude = { path: 'CLAUDE.md', sha256: 'ef'.repeat(32), bytes: 90000, shown: { sha256: '12'.repeat(32), size: 32768 } };
    const events = chain('c', [
      [1000, ev.started('root', 0)],
      [1100, { ...ev.model(1), contextFiles: [agents, claude] } as RecurEventInput],
    ]).records;
    const timeline = buildTimeline('c', events);
    expect(timeline[1].blobs).toEqual([
      { field: 'contextFiles[0].shown', ref: agents.shown }, { field: 'contextFiles[1].shown', ref: claude.shown },
    ]);
    const lines = formatTimeline('c', timeline);
    expect(lines).toContain(`               prompt ← AGENTS.md sha256:${'cd'.repeat(8)} (812 bytes), CLAUDE.md sha256:${'ef'.repeat(8)} (32768 of 90000 bytes shown), task #0`);
    expect(JSON.parse(timelineJson(timeline[1]))).toMatchObject({ event: { contextFiles: [agents, claude] }, promptFrom: ['c/0'] });
    expect(formatTimeline('r', buildTimeline('r', tree()))).toContain('               prompt ← task #0');
  });

  test('an event type newer than the CLI still shows its fields and blob refs', () => {
    const base = tree()[0];
    const future = {
      ...base, type: 'SomethingNewHappened',
      event: { type: 'SomethingNewHappened', variables: 3, snapshotBlob: BLOB, note: 'pickled\nwith cloudpickle', restored: false, names: ['a', 'b'] },
    } as unknown as StoredEvent;
    expect(formatEventLine(future)).toBe(
      `r/a #0 SomethingNewHappened  variables=3 snapshotBlob=blob:${'ab'.repeat(6)} note="pickled …" restored=false names=[2]`);
    expect(blobRefs(future.event)).toEqual([{ field: 'snapshotBlob', ref: BLOB }]);
    expect(formatTimeline('r/a', buildTimeline('r/a', [future]))[2]).toBe(`               snapshotBlob: blob ${'ab'.repeat(8)} (20000 bytes)`);
  });
});
