import { EventStreamCodec, getChunkedStream, type Message } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import type { Framing } from './stream';

/** One AWS event-stream message, its string headers read out (`:message-type`, `:event-type`, …). */
export interface AwsEvent {
  headers: Record<string, string>;
  /** The payload as text (JSON for Bedrock). */
  body: string;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/**
 * `application/vnd.amazon.eventstream`, split and checked (prelude and message CRCs) by the AWS
 * SDK's own codec; a truncated or corrupt frame throws, which the transport reports as retryable.
 */
export const EVENT_STREAM_FRAMING: Framing<AwsEvent> = {
  accept: 'application/vnd.amazon.eventstream',
  async *frames(chunks) {
    for await (const frame of getChunkedStream(chunks)) yield readMessage(codec.decode(frame));
  },
};

function readMessage(message: Message): AwsEvent {
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(message.headers)) {
    if (header.type === 'string') headers[name] = header.value;
  }
  return { headers, body: toUtf8(message.body) };
}
