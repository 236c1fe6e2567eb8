import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import type { StoredEvent } from '../../../schemas';
import { outsideChanges, outsideWhy, type OutsideChange } from './outside-changes';
import { sessionsOf, type SessionOutcome } from './tree-outcome';

/** Characters XML 1.0 cannot carry at all (a cell's output may hold any): each becomes U+FFFD. */
const NOT_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/**
 * Text and attribute values for xmlbuilder2. It leaves `&amp;`, `&lt;` and the like as it finds
 * them (taking them for escapes already made), so output that holds them would read back
 * changed: every `&` is escaped here first, and xmlbuilder2 escapes the rest.
 */
const xmlText = (text: string): string => text.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;');
const seconds = (ms: number): string => (Math.max(0, ms) / 1000).toFixed(3);

function sessionCase(suite: XMLBuilder, s: SessionOutcome): void {
  const c = suite.ele('testcase', { classname: s.sessionId, name: `session ${xmlText(s.name)}`, time: seconds(s.durationMs) });
  if (s.status === 'completed') c.ele('system-out').txt(xmlText(s.answer));
  else if (s.status === 'failed') c.ele('failure', { message: xmlText(`${s.kind}: ${s.reason}`), type: s.kind }).txt(xmlText(s.error ?? s.reason));
  else c.ele('error', { message: 'no end event logged', type: 'not-ended' }).txt(`${s.sessionId} logged no SessionCompleted or SessionFailed`);
}

/**
 * Changes that run outside Recur, as the first suite, one failed testcase each: GitHub's JUnit
 * reporters show failures first and passed cases or properties not at all (docs/ci.md).
 */
function outsideSuite(root: XMLBuilder, found: readonly OutsideChange[]): void {
  const suite = root.ele('testsuite', { name: 'changes that run outside Recur', tests: found.length, failures: found.length, errors: 0, time: seconds(0) });
  for (const c of found) {
    const what = c.changes.join(', ');
    suite.ele('testcase', { classname: `${c.sessionId}.outside`, name: xmlText(`${c.path} (${what})`), time: seconds(0) })
      .ele('failure', { message: xmlText(`${outsideWhy(c)}: runs or is read later outside Recur; review before merging`), type: c.rule === null ? 'git-meta' : 'sensitive-path' })
      .txt(xmlText(`${c.path} ${what} by ${c.sessionId} (last flagged in ${c.eventId})`));
  }
}

/**
 * The tree as JUnit XML: one testsuite per session, holding a testcase for the session itself
 * (failed: its SessionFailed; error: no end logged) and one per gate run (GateChecked), named
 * with its round, a failed run carrying the gate's output. Every run is kept, so a gate that
 * went red and then green shows both. Changes that run outside Recur come first, in a suite of their own.
 */
export function renderJunit(treeId: string, events: readonly StoredEvent[]): string {
  const sessions = sessionsOf(events);
  const doc = create({ version: '1.0', encoding: 'UTF-8' });
  const count = (pred: (s: SessionOutcome) => number) => sessions.reduce((n, s) => n + pred(s), 0);
  const outside = outsideChanges(events);
  const failures = outside.length + count((s) => (s.status === 'failed' ? 1 : 0) + s.gates.filter((g) => !g.passed).length);
  const root = doc.ele('testsuites', {
    name: `recur ${treeId}`, tests: outside.length + count((s) => 1 + s.gates.length), failures, errors: count((s) => (s.status === 'running' ? 1 : 0)),
    time: seconds(count((s) => (s.sessionId === treeId ? s.durationMs : 0))),
  });
  if (outside.length > 0) outsideSuite(root, outside);
  for (const s of sessions) {
    const gateFailures = s.gates.filter((g) => !g.passed).length;
    const suite = root.ele('testsuite', {
      name: s.sessionId, tests: 1 + s.gates.length, failures: gateFailures + (s.status === 'failed' ? 1 : 0),
      errors: s.status === 'running' ? 1 : 0, time: seconds(s.durationMs), timestamp: new Date(s.startedAt).toISOString(),
    });
    sessionCase(suite, s);
    for (const g of s.gates) {
      const c = suite.ele('testcase', { classname: `${s.sessionId}.gates`, name: xmlText(`${g.command} (round ${g.attempt})`), time: seconds(g.durationMs) });
      if (g.passed) c.ele('system-out').txt(xmlText(g.output));
      else c.ele('failure', { message: g.exitCode === null ? 'killed (timeout or signal) or did not start' : `exited ${g.exitCode}`, type: 'gate' }).txt(xmlText(g.output));
    }
  }
  return doc.end({ prettyPrint: true });
}
