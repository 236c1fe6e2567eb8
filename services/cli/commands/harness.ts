import { Client, Connection } from '@temporalio/client';
import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { mergeScopes } from '../../../activities/prompt/harness-section';
import { kafkaClient, temporalConnection } from '../../../config/connections';
import { readSessionLog } from '../../projector';
import { createHarnessClient } from '../../worker/harness-client';
import type { HarnessClient } from '../../../activities/harness/harness-client';
import { scopeOfId } from '../../worker/harness-ops';
import {
  approveRefineUpdate, refineHarnessUpdate, revertHarnessUpdate, type EditOutcome,
} from '../../../workflows/harness/harness-messages';
import type { HarnessEditRecord } from '../../../workflows/harness/harness-types';
import type { CommandContext } from '../command-context';

const USAGE = 'usage: recur harness ls [<session-id>] [--global] [--json] | show <edit-id> [--json] | revert <edit-id|refine-id> [--json]';

async function withHarness<T>(config: RecurConfig, f: (h: HarnessClient) => Promise<T>): Promise<T> {
  const connection = await Connection.connect(temporalConnection(config));
  try {
    const client = new Client({ connection, namespace: config.temporal.namespace });
    return await f(createHarnessClient(client, { taskQueue: config.temporal.taskQueue, globalScope: config.harness.globalScope }));
  } finally {
    await connection.close();
  }
}

export const formatOutcome = (o: EditOutcome): string =>
  `${o.editId}  ${o.result.padEnd(8)} ${o.action} ${o.kind} ${o.name}${o.error ? `: ${o.error}` : ''}`;

export function formatEdit(e: HarnessEditRecord): string[] {
  return [
    formatOutcome(e),
    `  trigger: ${e.trigger.reason} [${e.trigger.eventIds.join(', ')}]`,
    `  source: ${e.source}${e.requestedBy ? ` (${e.requestedBy})` : ''}${e.revertOf ? `  revert of ${e.revertOf}` : ''}${e.refineId ? `  refine ${e.refineId}` : ''}`,
    `  before: ${e.before ?? '(none)'}`,
    `  after:  ${e.after ?? '(none)'}`,
  ];
}

/** `recur harness ls|show|revert`: the Continual Harness from outside any session. */
export async function harness(ctx: CommandContext): Promise<number> {
  const [sub, arg] = ctx.args;
  const config = loadConfig();
  const json = Boolean(ctx.flags.json);
  if (sub === 'ls') {
    const entries = await withHarness(config, async (h) => {
      if (ctx.flags.global || !arg) return mergeScopes((await h.view(h.scopeId('', 'global'))).entries, []);
      const { global, session } = await h.merged(arg);
      return mergeScopes(global.entries, session.entries);
    });
    if (json) ctx.out(JSON.stringify({ entries }));
    else for (const e of entries) ctx.out(`${e.scope.padEnd(7)} ${e.kind.padEnd(8)} ${e.name}  (${e.editId})`);
    return 0;
  }
  if (sub === 'show' && arg) {
    // The values live in the log, not in the scope's workflow: read the edit from Kafka.
    const log = await readSessionLog({ kafka: kafkaClient(config, 'reader', 'recur-cli'), topic: config.kafka.topic, sessionId: scopeOfId(arg), descendants: false });
    const found = log.events.find((e) => e.eventId === arg && e.event.type === 'HarnessEdited');
    if (!found || found.event.type !== 'HarnessEdited') throw new ExitError(1, `no harness edit ${arg} in the log`);
    const { type: _type, ...fields } = found.event;
    const edit: HarnessEditRecord = {
      editId: arg, ...fields, trigger: { eventIds: [...fields.trigger.eventIds], reason: fields.trigger.reason },
      result: fields.result as HarnessEditRecord['result'], action: fields.action as HarnessEditRecord['action'],
    };
    if (json) ctx.out(JSON.stringify(edit));
    else for (const line of formatEdit(edit)) ctx.out(line);
    return 0;
  }
  if (sub === 'revert' && arg) {
    const reply = await withHarness(config, (h) => h.update(scopeOfId(arg), revertHarnessUpdate, {
      id: arg, source: 'cli', requestedBy: null, reason: `recur harness revert ${arg}`,
    }));
    if (!reply.ok) throw new ExitError(1, reply.error);
    if (json) ctx.out(JSON.stringify(reply));
    else for (const o of reply.edits) ctx.out(formatOutcome(o));
    return 0;
  }
  throw new ExitError(2, USAGE);
}

/** `recur refine <session-id>` (review and propose; apply per RECUR_REFINE_APPLY) and `recur refine approve <refine-id>`. */
export async function refine(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  const json = Boolean(ctx.flags.json);
  const [first, second] = ctx.args;
  if (first === 'approve' && second) {
    const reply = await withHarness(config, (h) => h.update(scopeOfId(second), approveRefineUpdate, { refineId: second, requestedBy: null }));
    if (!reply.ok) throw new ExitError(1, reply.error);
    if (json) ctx.out(JSON.stringify(reply));
    else for (const o of reply.edits) ctx.out(formatOutcome(o));
    return 0;
  }
  if (!first) throw new ExitError(2, 'usage: recur refine <session-id> [--instructions "<text>"] [--global] [--approve] [--json] | recur refine approve <refine-id>');
  const reply = await requestRefine(config, first, {
    instructions: typeof ctx.flags.instructions === 'string' ? ctx.flags.instructions : '', global: Boolean(ctx.flags.global), approve: Boolean(ctx.flags.approve),
  });
  if (json) ctx.out(JSON.stringify(reply));
  else for (const line of formatRefine(reply)) ctx.out(line);
  return 0;
}

/** Has a refiner review the session's trajectory; applies its edits per RECUR_REFINE_APPLY, or at once with `approve`. */
export function requestRefine(config: RecurConfig, sessionId: string, o: { instructions: string; global: boolean; approve: boolean }) {
  return withHarness(config, (h) => h.update(h.scopeId(sessionId, o.global ? 'global' : 'session'), refineHarnessUpdate, {
    sessionId, model: '', instructions: o.instructions,
    apply: o.approve ? 'approve' : config.harness.refineApply, source: 'cli', requestedBy: null,
  }));
}

/** What a refine proposed and applied, and how to approve what waits. */
export function formatRefine(reply: Awaited<ReturnType<typeof requestRefine>>): string[] {
  const lines = [`refine ${reply.refineId}: ${reply.summary || '(no summary)'}`, 'proposed:', ...reply.proposed.map((o) => `  ${formatOutcome(o)}`)];
  if (reply.applied.length > 0) lines.push('applied:', ...reply.applied.map((o) => `  ${formatOutcome(o)}`));
  else if (reply.proposed.some((o) => o.result === 'proposed')) lines.push(`not applied yet: recur refine approve ${reply.refineId}`);
  return lines;
}
