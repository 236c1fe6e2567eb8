import { Context } from '@temporalio/activity';
import { EventLogError, ProviderError } from '../../errors';
import type { StoredEvent } from '../../schemas';
import type { HarnessEntry } from '../../workflows/harness/harness-types';
import type { EditValues } from '../../workflows/harness/plan-harness-revert';
import type { ModelCalled } from '../../schemas/generated/events';
import type { BlobStore } from '../blob-store';
import { modelCalledFields } from '../call-model';
import type { AppendEventsInput, AppendEventsResult } from '../event-log';
import { createModel, type Model } from '../model/index';
import type { LocalModelsConfig } from '../model/local-models';
import { refuseShadowingSkills, type ModuleNames } from './module-names';
import { REFINER_SYSTEM_PROMPT, parseRefineReply, refinerMessages, type RefineProposal } from './refine-prompt';

export interface PlanRefineInput {
  sessionId: string;
  model: string;
  instructions: string;
  harness: HarnessEntry[];
  /** The scope's 0-based refine index: a retried call is the same call (the scripted model answers by it). */
  callIndex: number;
}

/** A refiner's proposal and its model call, which the scope logs as a ModelCalled like any other. */
export interface PlannedRefine extends RefineProposal {
  call: Omit<ModelCalled, 'type' | 'turn'>;
}

/** What a harness scope's workflow may ask of the world. */
export interface HarnessActivities {
  appendEvents(input: AppendEventsInput): Promise<AppendEventsResult>;
  planRefine(input: PlanRefineInput): Promise<PlannedRefine>;
  /** The before/after values of edits, from the scope's log (the workflow keeps edits without them). */
  readHarnessEdits(input: { scopeId: string; editIds: string[] }): Promise<Record<string, EditValues>>;
}

/** The refiner's model call: read the session's log, ask, parse. Validation is the workflow's. */
export function createRefineActivities(deps: {
  readLog: (sessionId: string) => Promise<readonly StoredEvent[]>;
  env: NodeJS.ProcessEnv;
  scriptedDirs: readonly string[];
  /** Where subscription logins are stored, for a refiner on a `chatgpt/…` or `copilot/…` model. */
  loginsDir?: string;
  /** How `local/<name>` models are found and run; absent: they are refused. */
  local?: LocalModelsConfig;
  blobs: BlobStore;
  moduleNames: ModuleNames;
}) {
  const models = new Map<string, Model>();
  return {
    async readHarnessEdits(input: { scopeId: string; editIds: string[] }): Promise<Record<string, EditValues>> {
      const wanted = new Set(input.editIds);
      const out: Record<string, EditValues> = {};
      for (const e of await deps.readLog(input.scopeId)) {
        if (wanted.has(e.eventId) && e.event.type === 'HarnessEdited') out[e.eventId] = { before: e.event.before, after: e.event.after };
      }
      const missing = input.editIds.filter((id) => !(id in out));
      // The workflow logged these before asking, so a miss is a lagging read: retry.
      if (missing.length > 0) throw new EventLogError(`harness edits not found in the log: ${missing.join(', ')}`, { retryable: true });
      return out;
    },
    async planRefine(input: PlanRefineInput): Promise<PlannedRefine> {
      const events = await deps.readLog(input.sessionId);
      // No model named: the refiner uses the reviewed session's own.
      const started = events.find((e) => e.event.type === 'SessionStarted')?.event as { model?: string } | undefined;
      const spec = input.model || started?.model;
      if (!spec) throw new ProviderError('refiner', `no model given and ${input.sessionId} has no SessionStarted to take one from`, undefined, { retryable: false });
      let model = models.get(spec);
      if (!model) models.set(spec, (model = createModel(spec, deps.env, { scriptedDirs: deps.scriptedDirs, loginsDir: deps.loginsDir, local: deps.local })));
      const res = await model.complete({
        system: REFINER_SYSTEM_PROMPT, messages: refinerMessages(events, input.harness, input.instructions), tools: 'none',
        agent: 'refiner', callIndex: input.callIndex, signal: Context.current().cancellationSignal,
      });
      let proposal: RefineProposal;
      try {
        proposal = parseRefineReply(res.text);
      } catch (e) {
        throw new ProviderError(res.provider, (e as Error).message, undefined, { retryable: false, cause: e });
      }
      // Evidence is what the log holds: cited ids it lacks are dropped; with none left, the reviewed log's head.
      const known = new Set(events.map((e) => e.eventId));
      const cited = proposal.evidence.filter((id) => known.has(id));
      return {
        ...proposal, edits: await refuseShadowingSkills(proposal.edits, deps.moduleNames),
        evidence: cited.length > 0 ? cited : events.slice(-1).map((e) => e.eventId), call: await modelCalledFields(deps.blobs, res),
      };
    },
  };
}
