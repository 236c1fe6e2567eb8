import { openaiText, openaiToolCall } from './openai-frames';
import { serveTurns, type TurnServer } from './openai-turn-server';

export type SlowOpenAIServer = TurnServer;

/**
 * An OpenAI Chat Completions server (the API's wire format, bench/openai-frames.ts) that waits `delayMs` before
 * each answer, standing in for a real model's latency. The n-th call of a conversation (n =
 * assistant turns already in the request) gets a `python` tool call running `codes[n]`, and
 * the call after the last gets a plain-text answer, so every conversation gets the same replies
 * and a retried call the same answer.
 */
export function startSlowOpenAIServer(codes: readonly string[], delayMs: number): Promise<SlowOpenAIServer> {
  return serveTurns((n, _raw, res) => {
    const reply = n < codes.length ? openaiToolCall(codes[n], { id: `call_${n}` }) : openaiText('done');
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.end(reply.frames.join(''));
    }, delayMs);
  });
}
