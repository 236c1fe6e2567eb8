import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openaiText, openaiToolCall } from './openai-frames';

export interface SlowOpenAIServer {
  /** Base URL to put in OPENAI_BASE_URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * An OpenAI Chat Completions server (the API's wire format, bench/openai-frames.ts) that waits `delayMs` before
 * each answer, standing in for a real model's latency. The n-th call of a conversation (n =
 * assistant turns already in the request) gets a `python` tool call running `codes[n]`, and
 * the call after the last gets a plain-text answer, so every conversation gets the same replies
 * and a retried call the same answer.
 */
export async function startSlowOpenAIServer(codes: readonly string[], delayMs: number): Promise<SlowOpenAIServer> {
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { messages?: Array<{ role: string }> };
      const n = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
      const reply = n < codes.length ? openaiToolCall(codes[n], { id: `call_${n}` }) : openaiText('done');
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        res.end(reply.frames.join(''));
      }, delayMs);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
