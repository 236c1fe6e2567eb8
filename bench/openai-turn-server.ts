import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TurnServer {
  /** Base URL to put in OPENAI_BASE_URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * A local OpenAI Chat Completions endpoint that hands each request to `answer` with its turn:
 * the assistant turns already in the request, so the n-th call of every conversation, and a
 * retried call, get the same turn.
 */
export async function serveTurns(answer: (turn: number, raw: string, res: ServerResponse) => void): Promise<TurnServer> {
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (piece: string) => (raw += piece));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { messages?: Array<{ role: string }> };
      answer((body.messages ?? []).filter((m) => m.role === 'assistant').length, raw, res);
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
