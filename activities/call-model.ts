import { Context } from '@temporalio/activity';
import type { BlobRef, ModelCalled } from '../schemas/generated/events';
import { INLINE, cutChars } from '../schemas/field-limits';
import { inlineOrBlob, type BlobStore } from './blob-store';
import { ThrottledError } from '../errors';
import { idempotencyKey } from './model/idempotency';
import { createModel, type Model, type ModelResponse } from './model/index';
import type { LocalModelsConfig } from './model/local-models';
import { checkReply, type RejectedReply } from './model/reply-check';
import { buildPrompt } from './prompt/build-prompt';
import type { ShownContextFile } from './prompt/context-section';
import { compactFor } from './prompt/compact-for';
import type { CompactedFields } from './prompt/long-run-notes';
import type { TranscriptCache } from './transcript-cache';
import type { StoredEvent } from '../schemas';

/** The log with its SessionStarted's whole task in place of a preview: the prompt shows the task the session was given. */
async function withWholeTask(events: readonly StoredEvent[], blobs: BlobStore): Promise<readonly StoredEvent[]> {
  return Promise.all(events.map(async (e) => (e.event.type === 'SessionStarted' && e.event.taskBlob
    ? { ...e, event: { ...e.event, task: (await blobs.get(e.event.taskBlob.sha256)).toString('utf8') } }
    : e)));
}

export interface CallModelInput {
  sessionId: string;
  /** The agent's name ('root' or its spawn name); the scripted model keys replies by it. */
  agent: string;
  model: string;
  /** This session's 0-based model-call index: a retried call is the same call. */
  callIndex: number;
  /** The prompt is rebuilt from the session's events 0..throughSeq. */
  throughSeq: number;
  /** Estimated prompt tokens past which older turns are summarised first; null never compacts. */
  compactAtTokens?: number | null;
  /** Compactions this session has logged: the summariser call's index. */
  compactions?: number;
  /** An operator asked: summarise everything but the latest turn, whatever the prompt's size (Compacted.manual). */
  compactNow?: boolean;
}

export interface CallModelResult {
  /** The reply's text when it carries no code and is not rejected: the session's answer (a preview when answerBlob is set). Null otherwise. */
  answer: string | null;
  answerBlob: BlobRef | null;
  /** The code to run; a preview when codeBlob is set, and the cell activity runs the blob. */
  code: string | null;
  codeBlob: BlobRef | null;
  toolCallId: string | null;
  /** Set when the reply has no code and is no answer either: the session logs the note and asks again. */
  rejected: RejectedReply | null;
  /** The ModelCalled event's fields, but for `turn`, which the workflow owns. */
  event: Omit<ModelCalled, 'type' | 'turn'>;
  /** Set when older turns were summarised for this call; the workflow logs it before ModelCalled. */
  compacted?: CompactedFields | null;
}


/** A model call as its ModelCalled event records it (all but the turn), for every caller of a model. */
export async function modelCalledFields(
  blobs: BlobStore, res: ModelResponse, context: readonly ShownContextFile[] = [],
): Promise<Omit<ModelCalled, 'type' | 'turn'>> {
  const response = await inlineOrBlob(blobs, res.text, INLINE.response);
  const toolCallId = res.toolCallId ?? null;
  return {
    model: res.model,
    provider: res.provider,
    tokensIn: res.usage.inputTokens,
    tokensOut: res.usage.outputTokens,
    costUsd: res.costUsd,
    latencyMs: res.latencyMs,
    response: response.preview,
    responseBlob: response.blob,
    toolCalls: toolCallId && res.code !== null
      // The preview: the whole code is the CellRequested's codeBlob.
      ? [{ id: toolCallId, name: 'python', arguments: JSON.stringify({ code: cutChars(res.code, INLINE.code) }) }]
      : [],
    stopReason: res.stopReason,
    requestBlob: null,
    contextFiles: context.map((c) => c.file),
    usageSource: res.usageReported ? 'reported' : 'estimated',
    cacheReadTokens: res.usage.cacheReadTokens ?? null,
    cacheWriteTokens: res.usage.cacheWriteTokens ?? null,
  };
}

export function createModelActivities(deps: {
  transcripts: TranscriptCache;
  blobs: BlobStore;
  env: NodeJS.ProcessEnv;
  /** Directories `scripted:` files may be read from; a session naming one elsewhere fails at its first call. */
  scriptedDirs: readonly string[];
  /** Where subscription logins are stored (`chatgpt/…`, `copilot/…` models). */
  loginsDir?: string;
  /** How `local/<name>` models are found and run; absent: they are refused. */
  local?: LocalModelsConfig;
  /** The session's Continual Harness as prompt text, right after the (immutable) base prompt. */
  harnessSection?: (sessionId: string) => Promise<string>;
  /** The session's workspace instruction files (AGENTS.md, CLAUDE.md), read afresh for each call. */
  contextFiles?: (sessionId: string) => Promise<ShownContextFile[]>;
  /** Told the reply's text as it streams, for live views; never the record (ModelCalled is). */
  onTextDelta?: (delta: { sessionId: string; turn: number; text: string }) => void;
}) {
  const models = new Map<string, Model>();
  const modelFor = (spec: string) => {
    let m = models.get(spec);
    if (!m) models.set(spec, (m = createModel(spec, deps.env, { scriptedDirs: deps.scriptedDirs, loginsDir: deps.loginsDir, local: deps.local })));
    return m;
  };

  return {
    /**
     * For a step loop (activities/step-loop/run-steps.ts), `also`: the events after throughSeq it
     * logs with the reply, in one transaction, and the harness section it read for the call.
     */
    async callModel(input: CallModelInput, also: { staged: readonly StoredEvent[]; harness: string } | null = null): Promise<CallModelResult> {
      const ctx = Context.current();
      const events = await withWholeTask([...await deps.transcripts.load(input.sessionId, input.throughSeq), ...also?.staged ?? []], deps.blobs);
      // In a step loop, the loop's own heartbeat watches it.
      const beat = also ? undefined : setInterval(() => ctx.heartbeat(), 3_000);
      let res;
      let compacted: CompactedFields | null = null;
      let context: ShownContextFile[] = [];
      // The key of the call in progress: the summary's, then the turn's own.
      let key = idempotencyKey(input.sessionId, { compaction: input.compactions ?? 0 });
      try {
        if (deps.contextFiles) context = await deps.contextFiles(input.sessionId);
        const manual = input.compactNow === true;
        if (input.compactAtTokens || manual) {
          compacted = await compactFor(modelFor(input.model), events, manual ? 0 : input.compactAtTokens!, {
            agent: input.agent, callIndex: input.compactions ?? 0, signal: ctx.cancellationSignal,
            idempotencyKey: key,
          }, manual);
        }
        const prompt = buildPrompt(events, compacted, context, also ? also.harness : await deps.harnessSection?.(input.sessionId));
        key = idempotencyKey(input.sessionId, { callIndex: input.callIndex });
        const live = deps.onTextDelta;
        res = await modelFor(input.model).complete({
          ...prompt, tools: 'python', agent: input.agent, callIndex: input.callIndex, signal: ctx.cancellationSignal,
          idempotencyKey: key,
          ...(live && { onTextDelta: (text: string) => live({ sessionId: input.sessionId, turn: input.callIndex, text }) }),
        });
      } catch (e) {
        // The workflow logs which model and which call it waits for.
        if (e instanceof ThrottledError) throw new ThrottledError({ ...e.info, model: input.model, idempotencyKey: key });
        throw e;
      } finally {
        clearInterval(beat);
      }
      // Model-written values are offloaded here, before they reach the workflow.
      const rejected = checkReply(res);
      const answer = res.code === null && !rejected ? await inlineOrBlob(deps.blobs, res.text, INLINE.answer) : null;
      const code = res.code === null ? null : await inlineOrBlob(deps.blobs, res.code, INLINE.code);
      return {
        answer: answer?.preview ?? null,
        answerBlob: answer?.blob ?? null,
        code: code?.preview ?? null,
        codeBlob: code?.blob ?? null,
        toolCallId: res.toolCallId ?? null,
        rejected,
        compacted,
        event: await modelCalledFields(deps.blobs, res, context),
      };
    },
  };
}
