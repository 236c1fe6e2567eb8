import { eventFacts } from '../../services/cli/format-event';
import { eventIndex, faultsByEvent, pendingRows, relativeTime, rowIndex, shortName, timelineRows, treeStart } from '../../ui/model/rows';
import type { TreeVerdict } from '../../log/verify-tree';
import { viewerTree } from './ui-fixture';

describe('timeline rows', () => {
  const { events, harness } = viewerTree();

  it('shows the whole tree in causal order with each harness edit before the first later event', () => {
    const rows = timelineRows(events, harness, 'tree', 'r');
    expect(rows).toHaveLength(events.length + harness.length);
    const ids = rows.map((r) => r.event.eventId);
    expect(ids.indexOf('r/4')).toBe(ids.indexOf('harness:r/0') + 1);
    expect(ids.indexOf('harness:r/0')).toBe(ids.indexOf('r/3') + 1);
    expect(rows.filter((r) => r.event.sessionId !== 'harness:r').map((r) => r.event.eventId)).toEqual(events.map((e) => e.eventId));
    expect(rows.find((r) => r.event.eventId === 'r/a/1')?.depth).toBe(1);
    expect(rows.find((r) => r.event.eventId === 'harness:r/2')?.depth).toBe(1);
  });

  it("keeps one session's events and the edits it asked for in session scope", () => {
    const rows = timelineRows(events, harness, 'session', 'r/a');
    expect(rows.map((r) => r.event.eventId)).toEqual(['r/a/0', 'r/a/1', 'r/a/2', 'harness:r/2', 'r/a/3', 'r/a/4']);
  });

  it('while the tree loads, counts the rows still to come and holds back the edits that may belong among them', () => {
    const counts: Record<string, number> = {};
    for (const e of events) counts[e.sessionId] = (counts[e.sessionId] ?? 0) + 1;
    const whole = timelineRows(events, harness, 'tree', 'r');
    for (let n = 1; n <= events.length; n++) {
      const tree = { events: events.slice(0, n), harness, expected: counts };
      for (const [scope, focus] of [['tree', 'r'], ['session', 'r/a']] as const) {
        const pending = pendingRows(tree, scope, focus);
        const rows = timelineRows(tree.events, pending.harness, scope, focus);
        const all = timelineRows(events, harness, scope, focus);
        expect(rows.length + pending.toCome).toBe(all.length);
        // What shows already stands where the whole tree puts it.
        expect(rows.map((r) => r.event.eventId)).toEqual(all.slice(0, rows.length).map((r) => r.event.eventId));
      }
    }
    expect(pendingRows({ events, harness, expected: null }, 'tree', 'r')).toEqual({ harness, toCome: 0 });
    expect(whole).toHaveLength(events.length + harness.length);
  });

  it('indexes rows and events by id and finds the tree start', () => {
    const rows = timelineRows(events, harness, 'tree', 'r');
    const index = rowIndex(rows);
    expect(rows[index.get('r/b/1') ?? -1].event.eventId).toBe('r/b/1');
    expect(eventIndex(events, harness).get('harness:r/1')?.type).toBe('HarnessEdited');
    expect(treeStart(events)).toBe(100);
    expect(treeStart([])).toBe(0);
  });

  it("names the verdict's first fault per event", () => {
    const fault = (eventId: string | null, f: string) => ({ fault: f, eventId, sessionId: 'r', seq: 1, detail: 'x' });
    const verdict = { faults: [fault('r/1', 'hash-mismatch'), fault('r/1', 'bad-signature'), fault(null, 'undecodable')] } as unknown as TreeVerdict;
    expect([...faultsByEvent(verdict)]).toEqual([['r/1', 'hash-mismatch']]);
    expect(faultsByEvent(null).size).toBe(0);
  });

  it('formats times and names for a row', () => {
    expect(relativeTime(1234)).toBe('+1.234s');
    expect(relativeTime(725_300)).toBe('+12:05.3');
    expect(relativeTime(7_384_000)).toBe('+2:03:04');
    expect(shortName('r0lqx3k9z1a2b3c')).toBe('1a2b3c');
    expect(shortName('r0lqx3k9z1a2b3c/helper/sub')).toBe('sub');
    expect(shortName('harness:r0lqx3k9z1a2b3c')).toBe('harness');
  });

  it('summarises the events the CLI used to show field by field', () => {
    const line = (id: string) => eventFacts([...events, ...harness].find((e) => e.eventId === id)!.event);
    expect(line('r/6')).toBe('1 variable 5 bytes covers #5');
    expect(line('r/a/2')).toBe('after 60s idle');
    expect(line('r/a/3')).toBe('by r r#m');
    expect(line('harness:r/1')).toBe('update memory notes refused by kernel');
  });
});
