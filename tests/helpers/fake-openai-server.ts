import { startFakeSseServer, type FakeReply, type FakeSseServer } from './fake-sse-server';

export { openaiText, openaiToolCall, type OpenAIStreamOptions } from '../../bench/openai-frames';

/** A fake OpenAI Chat Completions server, streaming the API's frames (bench/openai-frames.ts). */
export const startFakeOpenAIServer: () => Promise<FakeSseServer> = startFakeSseServer;

/** An HTTP error in OpenAI's shape. */
export function openaiError(status: number, message: string, headers?: Record<string, string>): FakeReply {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { type: 'json', status, headers, body: { error: { message, type, param: null, code: null } } };
}
