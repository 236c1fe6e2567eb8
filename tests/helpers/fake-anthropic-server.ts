import { splitText, startFakeSseServer, type FakeReply, type FakeSseServer, type SseReply } from './fake-sse-server';

/**
 * A fake Anthropic Messages server: `event: <type>` + `data: {json}` frames in the API's order
 * (message_start, content_block_start/delta/stop per block, a ping, message_delta, message_stop).
 */
export const startFakeAnthropicServer: () => Promise<FakeSseServer> = startFakeSseServer;

export interface AnthropicStreamOptions {
  model?: string;
  usage?: { input: number; output: number };
  /** How many deltas the text (or the tool input JSON) is cut into. */
  pieces?: number;
}

/** A streamed plain-text answer. */
export function anthropicText(text: string, opts: AnthropicStreamOptions = {}): SseReply {
  return message(opts, [textBlock(0, text, opts.pieces ?? 3)], 'end_turn');
}

/** A streamed `python` tool_use whose input JSON arrives in `pieces` input_json_delta events, after optional text. */
export function anthropicToolUse(
  code: string,
  opts: AnthropicStreamOptions & { id?: string; text?: string } = {},
): SseReply {
  const blocks = opts.text ? [textBlock(0, opts.text, 1)] : [];
  const index = blocks.length;
  const id = opts.id ?? 'toolu_01FakeToolUse';
  const json = ['', ...splitText(JSON.stringify({ code }), opts.pieces ?? 4)];
  blocks.push([
    event('content_block_start', { index, content_block: { type: 'tool_use', id, name: 'python', input: {} } }),
    ...json.map((partial_json) => event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } })),
    event('content_block_stop', { index }),
  ]);
  return message(opts, blocks, 'tool_use');
}

/** An HTTP error in Anthropic's shape. */
export function anthropicError(status: number, type: string, message: string, headers?: Record<string, string>): FakeReply {
  return { type: 'json', status, headers, body: { type: 'error', error: { type, message } } };
}

/** An `error` event after a 200 (the API sends `overloaded_error` this way). */
export function anthropicStreamError(type: string, message: string): SseReply {
  const start = messageStart('claude-sonnet-4-5-20250929', 10);
  return { type: 'sse', frames: [start, event('error', { error: { type, message } })] };
}

export function event(type: string, fields: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}

function message(opts: AnthropicStreamOptions, blocks: string[][], stopReason: string): SseReply {
  const usage = opts.usage ?? { input: 25, output: 15 };
  const frames = [
    messageStart(opts.model ?? 'claude-sonnet-4-5-20250929', usage.input),
    ...blocks[0].slice(0, 1),
    event('ping', {}),
    ...blocks[0].slice(1),
    ...blocks.slice(1).flat(),
    event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } }),
    event('message_stop', {}),
  ];
  return { type: 'sse', frames };
}

function messageStart(model: string, inputTokens: number): string {
  return event('message_start', {
    message: {
      id: 'msg_01Fake',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    },
  });
}

function textBlock(index: number, text: string, pieces: number): string[] {
  return [
    event('content_block_start', { index, content_block: { type: 'text', text: '' } }),
    ...splitText(text, pieces).map((t) => event('content_block_delta', { index, delta: { type: 'text_delta', text: t } })),
    event('content_block_stop', { index }),
  ];
}
