/**
 * OpenAI Chat Completions streams as the API sends them: `chat.completion.chunk` frames as
 * `data: {json}` lines, `usage: null` on every chunk until the usage-only chunk that
 * `stream_options.include_usage` adds, then `data: [DONE]`. The benches' slow model server and
 * the tests' fake one (tests/helpers/fake-openai-server.ts) answer with these.
 */
export interface OpenAIStreamOptions {
  model?: string;
  /** null: a server that ignores `stream_options.include_usage` and sends no usage chunk. */
  usage?: { prompt: number; completion: number; cached?: number } | null;
  /** How many deltas the text (or the tool arguments) is cut into. */
  pieces?: number;
}

/** A reply streamed as server-sent events: raw frames, each ending in a blank line. */
export interface StreamFrames {
  type: 'sse';
  frames: string[];
}

/** `text` in `pieces` parts of about equal length (by code point, so no character is split). */
export function splitText(text: string, pieces: number): string[] {
  const chars = [...text];
  const size = Math.max(1, Math.ceil(chars.length / pieces));
  const out: string[] = [];
  for (let at = 0; at < chars.length; at += size) out.push(chars.slice(at, at + size).join(''));
  return out;
}

/** A streamed plain-text answer. */
export function openaiText(text: string, opts: OpenAIStreamOptions = {}): StreamFrames {
  const deltas = splitText(text, opts.pieces ?? 3).map((content) => ({ content }));
  return sse(opts, [{ role: 'assistant', content: '', refusal: null }, ...deltas], 'stop');
}

/** A streamed `python` tool call whose JSON arguments arrive in `pieces` deltas, after optional text. */
export function openaiToolCall(code: string, opts: OpenAIStreamOptions & { id?: string; text?: string } = {}): StreamFrames {
  const id = opts.id ?? 'call_abc123';
  const args = splitText(JSON.stringify({ code }), opts.pieces ?? 4);
  const deltas: object[] = [{ role: 'assistant', content: opts.text ? '' : null, refusal: null }];
  if (opts.text) deltas.push({ content: opts.text });
  deltas.push({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'python', arguments: '' } }] });
  for (const piece of args) deltas.push({ tool_calls: [{ index: 0, function: { arguments: piece } }] });
  return sse(opts, deltas, 'tool_calls');
}

function sse(opts: OpenAIStreamOptions, deltas: object[], finishReason: string): StreamFrames {
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
