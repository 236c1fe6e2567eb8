import type { RecurConfig } from '../../../config';
import type { StoredEvent } from '../../../schemas';
import type { DaemonClient } from '../daemon-client';
import type { CiOptions } from './ci-flags';
import { writeReportFile } from './write-file';

/** A later step of the job (an export, an upload) names the session by this output: `steps.<id>.outputs.session`. */
export function recordSessionOutput(ci: CiOptions, sessionId: string): void {
  if (ci.stepOutput !== null) writeReportFile('step output', ci.stepOutput, `session=${sessionId}\n`, true);
}

/**
 * After the root's end event: the exit code, 0 completed / 1 failed as always, unless CI mode, a
 * report or a reviewer's branch asks for more. The report writer (JUnit, the tree's log) is loaded only then, so a
 * plain `recur run` does not load it at start.
 */
export async function finishRun(
  o: { config: RecurConfig; daemon: DaemonClient; sessionId: string; ci: CiOptions; err: (line: string) => void },
  end: StoredEvent,
  plain: number,
): Promise<number> {
  if (!o.ci.enabled && o.ci.junit === null && o.ci.summary === null && o.ci.branch === null) return plain;
  return (await import('./write-reports')).writeReports(o, end, plain);
}
