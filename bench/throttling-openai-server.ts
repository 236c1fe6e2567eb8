import { openaiText, openaiToolCall } from './openai-frames';
import { serveTurns, type TurnServer } from './openai-turn-server';

export interface ThrottlingOpenAIServer extends TurnServer {
  /** What the server billed: tokens of the replies it answered (a 429 is refused, never billed), and the 429s it sent. */
  billed(): { tokens: number; answered: number; throttled: number };
}

/**
 * An OpenAI Chat Completions server that bills as the API does: a call it answers costs its
 * prompt (a quarter of the request's bytes, so a longer or repeated prompt costs more) and its
 * reply; a 429 costs nothing. Conversations get the same replies as the slow server's
 * (bench/slow-openai-server.ts): the n-th call runs `codes[n]`, the one after the last answers.
 * `throttles(n)` says how many 429s (each with `retry-after-ms`) the n-th call meets before it is answered.
 */
export async function startThrottlingOpenAIServer(codes: readonly string[], throttles: (call: number) => number, retryAfterMs: number): Promise<ThrottlingOpenAIServer> {
  const met = new Map<number, number>();
  const bill = { tokens: 0, answered: 0, throttled: 0 };
  const server = await serveTurns((n, raw, res) => {
    const seen = met.get(n) ?? 0;
    if (seen < throttles(n)) {
      met.set(n, seen + 1);
      bill.throttled++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': String(retryAfterMs) });
      res.end(JSON.stringify({ error: { message: 'Rate limit reached (bench)', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
      return;
    }
    const usage = { prompt: Math.ceil(raw.length / 4), completion: 20 };
    const reply = n < codes.length ? openaiToolCall(codes[n], { id: `call_${n}`, usage }) : openaiText('done', { usage });
    bill.tokens += usage.prompt + usage.completion;
    bill.answered++;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.end(reply.frames.join(''));
  });
  return { ...server, billed: () => ({ ...bill }) };
}
