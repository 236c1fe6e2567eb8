import { Context } from '@temporalio/activity';
import type { ModelCalled } from '../schemas/generated/events';
import { inlineOrBlob, type BlobStore } from './blob-store';
import { createModel, type Model, type ModelResponse } from './model/index';
import { buildPrompt } from './prompt/build-prompt';
import { compactFor } from './prompt/compact-for';
import type { CompactedFields } from './prompt/long-run-notes';
import type { TranscriptCache } from './transcript-cache';

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
}

export interface CallModelResult {
  /** The reply's text when it carries no code: the session's answer. Null otherwise (it is in `event`). */
  answer: string | null;
  code: string | null;
  toolCallId: string | null;
  /** The ModelCalled event's fields, but for `turn`, which the workflow owns. */
  event: Omit<ModelCalled, 'type' | 'turn'>;
  /** Set when older turns were summarised for this call; the workflow logs it before ModelCalled. */
  compacted?: CompactedFields | null;
}


/** A response longer than this keeps a preview in its event and the whole in the blob store. */
const INLINE_RESPONSE_CHARS = 32 * 1024;

/** A model call as its ModelCalled event records it (all but the turn), for every caller of a model. */
export async function modelCalledFields(blobs: BlobStore, res: ModelResponse): Promise<Omit<ModelCalled, 'type' | 'turn'>> {
  const response = await inlineOrBlob(blobs, res.text, INLINE_RESPONSE_CHARS);
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
      ? [{ id: toolCallId, name: 'python', arguments: JSON.stringify({ code: res.code }) }]
      : [],
    stopReason: res.stopReason,
    requestBlob: null,
  };
}

export function createModelActivities(deps: {
  transcripts: TranscriptCache;
  blobs: BlobStore;
  env: NodeJS.ProcessEnv;
  /** Directories `scripted:` files may be read from; a session naming one elsewhere fails at its first call. */
  scriptedDirs: readonly string[];
  /** The session's Continual Harness as prompt text, appended after the (immutable) base prompt. */
  harnessSection?: (sessionId: string) => Promise<string>;
}) {
  const models = new Map<string, Model>();
  const modelFor = (spec: string) => {
    let m = models.get(spec);
    if (!m) models.set(spec, (m = createModel(spec, deps.env, { scriptedDirs: deps.scriptedDirs })));
    return m;
  };

  return {
    async callModel(input: CallModelInput): Promise<CallModelResult> {
      const ctx = Context.current();
      const events = await deps.transcripts.load(input.sessionId, input.throughSeq);
      const beat = setInterval(() => ctx.heartbeat(), 3_000);
      let res;
      let compacted: CompactedFields | null = null;
      try {
        if (input.compactAtTokens) {
          compacted = await compactFor(modelFor(input.model), events, input.compactAtTokens, {
            agent: input.agent, callIndex: input.compactions ?? 0, signal: ctx.cancellationSignal,
          });
        }
        const prompt = buildPrompt(events, compacted);
        if (deps.harnessSection) prompt.system += await deps.harnessSection(input.sessionId);
        res = await modelFor(input.model).complete({
          ...prompt, tools: 'python', agent: input.agent, callIndex: input.callIndex, signal: ctx.cancellationSignal,
        });
      } finally {
        clearInterval(beat);
      }
      return {
        answer: res.code === null ? res.text : null,
        code: res.code,
        toolCallId: res.toolCallId ?? null,
        compacted,
        event: await modelCalledFields(deps.blobs, res),
      };
    },
  };
}
