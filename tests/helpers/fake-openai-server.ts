import { splitText, startFakeSseServer, type FakeReply, type FakeSseServer, type SseReply } from './fake-sse-server';

/**
 * A fake OpenAI Chat Completions server: `chat.completion.chunk` frames as `data: {json}` lines,
 * `usage: null` on every chunk until the usage-only chunk that `stream_options.include_usage`
 * adds, then `data: [DONE]`.
 */
export const startFakeOpenAIServer: () => Promise<FakeSseServer> = startFakeSseServer;

export interface OpenAIStreamOptions {
  model?: string;
  /** null: a server that ignores `stream_options.include_usage` and sends no usage chunk. */
  usage?: { prompt: number; completion: number; cached?: number } | null;
  /** How many deltas the text (or the tool arguments) is cut into. */
  pieces?: number;
}

/** A streamed plain-text answer. */
export function openaiText(text: string, opts: OpenAIStreamOptions = {}): SseReply {
  const deltas = splitText(text, opts.pieces ?? 3).map((content) => ({ content }));
  return sse(opts, [{ role: 'assistant', content: '', refusal: null }, ...deltas], 'stop');
}

/** A streamed `python` tool call whose JSON arguments arrive in `pieces` deltas, after optional text. */
export function openaiToolCall(code: string, opts: OpenAIStreamOptions & { id?: string; text?: string } = {}): SseReply {
  const id = opts.id ?? 'call_abc123';
  const args = splitText(JSON.stringify({ code }), opts.pieces ?? 4);
  const deltas: object[] = [{ role: 'assistant', content: opts.text ? '' : null, refusal: null }];
  if (opts.text) deltas.push({ content: opts.text });
  deltas.push({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'python', arguments: '' } }] });
  for (const piece of args) deltas.push({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
  return sse(opts, deltas, 'tool_calls');
}

/** An HTTP error in OpenAI's shape. */
export function openaiError(status: number, message: string, headers?: Record<string, string>): FakeReply {
  const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { type: 'json', status, headers, body: { error: { message, type, param: null, code: null } } };
}

function sse(opts: OpenAIStreamOptions, deltas: object[], finishReason: string): SseReply {
  const model = opts.model ?? 'gpt-4o-mini-2024-07-18';
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1_700_000_000, model, system_fingerprint: 'fp_fake' };
  const chunk = (delta: object, finish: string | null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  const usage = opts.usage === undefined ? { prompt: 12, completion: 7 } : opts.usage;
  const chunks = [
    ...deltas.map((d) => chunk(d, null)),
    chunk({}, finishReason),
    ...(usage === null ? [] : [{
      ...base,
      choices: [],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
        prompt_tokens_details: { cached_tokens: usage.cached ?? 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
    }]),
  ];
  return { type: 'sse', frames: [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'] };
}
