import { openBlobStore } from '../../../activities/open-blob-store';
import type { RecurConfig } from '../../../config';
import { RecurError } from '../../../errors';
import type { StoredEvent } from '../../../schemas';
import type { DaemonClient } from '../daemon-client';
import { endScanOf } from '../../projector';
import { readTreeLog } from '../tree-log';
import type { CiOptions } from './ci-flags';
import { ciVerdict } from './exit-codes';
import { renderJunit } from './junit';
import { renderSummary } from './summary';
import { writeReportFile as write } from './write-file';

/** The root's net change as its end scan stored it, in the home's blob store (the one its worker wrote). */
async function netDiffOf(config: RecurConfig, events: readonly StoredEvent[], rootId: string): Promise<string | null> {
  const ref = endScanOf(events, rootId)?.netDiff;
  if (!ref) return null;
  try {
    return (await openBlobStore(config).get(ref.sha256)).toString('utf8');
  } catch (e) {
    throw new RecurError(`cannot read the net diff of ${rootId} (blob ${ref.sha256}) for the summary: ${(e as Error).message}`, { cause: e });
  }
}

/**
 * After the root's end event, when finishRun found a report to write or CI mode: reads the whole
 * tree's log, writes the JUnit report and the summary asked for (and appends the summary to
 * $GITHUB_STEP_SUMMARY in CI mode), makes the reviewer's branch asked for, and returns the exit
 * code: the CI code in CI mode, else `plain`.
 */
export async function writeReports(
  o: { config: RecurConfig; daemon: DaemonClient; sessionId: string; ci: CiOptions; err: (line: string) => void },
  end: StoredEvent,
  plain: number,
): Promise<number> {
  const events = await readTreeLog(o.daemon, o.sessionId);
  const verdict = ciVerdict(end, events);
  if (o.ci.junit !== null) write('JUnit report', o.ci.junit, renderJunit(o.sessionId, events));
  const summary = o.ci.summary !== null || o.ci.stepSummary !== null ? renderSummary({ treeId: o.sessionId, events, verdict, netDiff: await netDiffOf(o.config, events, o.sessionId) }) : '';
  if (o.ci.summary !== null) write('summary', o.ci.summary, summary);
  if (o.ci.stepSummary !== null) write('job summary', o.ci.stepSummary, summary, true);
  if (o.ci.branch !== null) {
    const { makeReviewBranch } = await import('./review-branch');
    o.err(`recur: ${await makeReviewBranch({ rootId: o.sessionId, events, verdict, branch: o.ci.branch })}`);
  }
  if (!o.ci.enabled) return plain;
  o.err(`recur: exit ${verdict.code}: ${verdict.reason}`);
  return verdict.code;
}
