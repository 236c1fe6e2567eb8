import { scanFences } from './extract-code';
import type { ModelResponse } from './types';

/**
 * What real models send that is neither code to run nor an answer (docs/bad-inputs.md, "Model
 * replies"). Pure: the model activity classifies each reply that carries no code; the session
 * logs a ReplyRejected with the note and asks again (workflows/reject-reply.ts decides how often).
 */
export type ReplyProblem = 'empty' | 'unclosed_fence' | 'cut_off' | 'bad_tool_call' | 'refusal';

export interface RejectedReply {
  problem: ReplyProblem;
  /** Shown to the model as the next user message. */
  note: string;
}

const ASK = 'Reply with a ```python block to run code, or with your final answer as plain text.';

/**
 * A reply that is nothing but a refusal ("I'm sorry, but I can't help with that."): the prose
 * form, from models and proxies that have no refusal field. Anything more (what could not be done,
 * and why) is an answer, even a short one: "I can't do that: config.yaml does not exist."
 */
const PROSE_REFUSAL = /^\W*(?:(?:i['’]?m|i am) sorry|sorry|i apologi[sz]e)?[\s,.!]*(?:but\s+)?(?:i\s+(?:can(?:no|['’])t|won['’]?t|will not|am (?:not able|unable) to)|i['’]?m (?:not able|unable) to)\s+(?:help|assist|do|comply|provide|complete|fulfil|answer)(?:\s+(?:you|with|that|this|it|the|your|request|task))*[\s.!]*$/i;
/** Past this a reply says more than no; it also bounds the pattern's work. */
const PROSE_REFUSAL_MAX = 200;

/** Why a reply without code cannot be taken as the session's answer, or null when it can. */
export function checkReply(res: Pick<ModelResponse, 'text' | 'code' | 'stopReason' | 'toolCallErrors'>): RejectedReply | null {
  if (res.code !== null) return null;
  const text = res.text.trim();
  if (res.toolCallErrors?.length) {
    return { problem: 'bad_tool_call', note: `[your python tool call was not run] ${res.toolCallErrors.join('; ')}. Call python again with JSON arguments {"code": "<the Python source>"}.` };
  }
  if (res.stopReason === 'refusal' || (text.length <= PROSE_REFUSAL_MAX && PROSE_REFUSAL.test(text))) {
    return { problem: 'refusal', note: '[your reply was a refusal] If the task cannot be done, give a final answer that says why. Otherwise carry on with it.' };
  }
  const { unclosed } = scanFences(res.text);
  if (res.stopReason === 'max_tokens') {
    const lost = unclosed ? ' inside a ```python block; the unclosed block was not run' : '; it was not taken as your answer';
    return { problem: 'cut_off', note: `[your reply was cut off at the token limit${lost}] Keep replies shorter: one small cell at a time, then the final answer. ${ASK}` };
  }
  if (unclosed) {
    return { problem: 'unclosed_fence', note: '[your ```python block was never closed, so it was not run] End each block with a line holding only ```.' };
  }
  if (text === '') return { problem: 'empty', note: `[your reply was empty] ${ASK}` };
  return null;
}

/**
 * A note for the output of a cell that ran from fenced code, when the reply around it needs one:
 * the prompt builder appends it to the cell's result. Empty when the reply was plain.
 */
export function cellNote(response: string, stopReason: string): string {
  const { blocks, unclosed, after } = scanFences(response);
  const notes: string[] = [];
  if (unclosed) notes.push(stopReason === 'max_tokens'
    ? 'your reply was cut off at the token limit; its unclosed ```python block was not run, the closed ones above it were'
    : 'your reply has a ```python block that was never closed; it was not run, the closed ones above it were');
  else if (stopReason === 'max_tokens') notes.push('your reply was cut off at the token limit after its code');
  if (blocks.length > 1) notes.push(`your ${blocks.length} python blocks ran as one cell, in order`);
  if (after && !unclosed) notes.push('the text after your code was written before it ran: this output is what it did');
  return notes.length === 0 ? '' : `\n[note: ${notes.join('; ')}]`;
}
