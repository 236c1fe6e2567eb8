import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import type { RecurConfig } from '../../config';
import { temporalConnection } from '../../config/connections';
import { repoRoot } from '../../services/home/repo-root';
import * as workflows from '../../workflows';

type History = temporal.api.history.v1.IHistory;

/**
 * What a history exercises, named so a set of histories can cover them all: the workflow type,
 * each activity, signal, update, query-free command kind (timer, child, continue-as-new),
 * marker and patch it holds.
 */
export function historyFeatures(workflowType: string, history: History): Set<string> {
  const features = new Set([`workflow:${workflowType}`]);
  for (const e of history.events ?? []) {
    if (e.activityTaskScheduledEventAttributes) features.add(`activity:${e.activityTaskScheduledEventAttributes.activityType?.name}`);
    if (e.workflowExecutionSignaledEventAttributes) features.add(`signal:${e.workflowExecutionSignaledEventAttributes.signalName}`);
    if (e.workflowExecutionUpdateAcceptedEventAttributes) features.add(`update:${e.workflowExecutionUpdateAcceptedEventAttributes.acceptedRequest?.input?.name}`);
    if (e.timerStartedEventAttributes) features.add('timer');
    if (e.startChildWorkflowExecutionInitiatedEventAttributes) features.add(`child:${e.startChildWorkflowExecutionInitiatedEventAttributes.workflowType?.name}`);
    if (e.workflowExecutionContinuedAsNewEventAttributes) features.add('continue-as-new');
    if (e.markerRecordedEventAttributes) features.add(`marker:${e.markerRecordedEventAttributes.markerName}`);
    // Every patch a separate feature: a history run on each side of a patch is what the replay test needs.
    const patch = e.markerRecordedEventAttributes?.details?.['patch-data']?.payloads?.[0];
    if (patch) features.add(`patch:${defaultPayloadConverter.fromPayload<{ id: string }>(patch).id}`);
    if (e.workflowExecutionCompletedEventAttributes) features.add('completed');
    if (e.workflowExecutionFailedEventAttributes) features.add('failed');
    if (e.workflowExecutionCanceledEventAttributes) features.add('cancelled');
  }
  return features;
}

/**
 * Writes into `dir` the fewest closed histories of the stack's namespace that together exercise
 * every feature any of them does, the smallest first: the replay fixtures
 * (tests/unit/workflow-replay.test.ts). Run by the integration tier's teardown when
 * RECUR_RECORD_HISTORIES names the directory.
 */
export async function recordHistories(config: RecurConfig, dir: string): Promise<number> {
  const connection = await Connection.connect(temporalConnection(config));
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const found: Array<{ type: string; history: History; size: number; features: Set<string> }> = [];
    for await (const wf of client.workflow.list({ query: 'ExecutionStatus != "Running"' })) {
      // Test-only workflows (tests/helpers/workflows) are not Recur's to keep replayable.
      if (!Object.hasOwn(workflows, wf.type)) continue;
      const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      found.push({ type: wf.type, history, size: history.events?.length ?? 0, features: historyFeatures(wf.type, history) });
    }
    found.sort((a, b) => a.size - b.size);
    const uncovered = new Set(found.flatMap((f) => [...f.features]));
    mkdirSync(dir, { recursive: true });
    let written = 0;
    while (uncovered.size > 0) {
      // The history covering the most features still missing, the smaller on a tie.
      const best = found.reduce((a, b) => ([...b.features].filter((x) => uncovered.has(x)).length > [...a.features].filter((x) => uncovered.has(x)).length ? b : a));
      for (const f of best.features) uncovered.delete(f);
      scrub(best.history, repoRoot());
      // The binary protobuf Temporal's API sends: a JSON file would need protobufjs's JSON support, which this install holds twice.
      const bytes = Buffer.from(temporal.api.history.v1.History.encode(best.history).finish());
      // Named by content: fixtures from a later recording join the earlier ones, never replace them.
      writeFileSync(join(dir, `${best.type}-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}.pb`), bytes);
      written++;
    }
    return written;
  } finally {
    await connection.close();
  }
}

/**
 * Writes `<repo>` for the checkout's path in every string and payload of `value` (in place), so
 * a fixture says nothing of the machine it was recorded on. Replay compares commands, never
 * their inputs, so the histories replay the same.
 */
export function scrub(value: unknown, root: string): void {
  if (!value || typeof value !== 'object') return;
  const node = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(node)) {
    if (typeof v === 'string' && v.includes(root)) node[key] = v.split(root).join('<repo>');
    else if (v instanceof Uint8Array) {
      const text = Buffer.from(v).toString('utf8');
      if (text.includes(root)) node[key] = Buffer.from(text.split(root).join('<repo>'), 'utf8');
    } else scrub(v, root);
  }
}
