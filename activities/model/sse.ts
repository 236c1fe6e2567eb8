import type { Framing } from './stream';

/** One Server-Sent Event: `event` is the `event:` field (empty when absent), `data` its joined `data:` lines. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Incremental SSE parser (WHATWG event-stream rules, minus `id`/`retry`, which no model API
 * uses): bytes arrive in arbitrary pieces, so a line or a UTF-8 character may be split across
 * `push` calls. Comment lines (`: ping`) are dropped.
 */
export class SseParser {
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private event = '';
  private data: string[] = [];

  push(bytes: Uint8Array): SseEvent[] {
    this.buffer += this.decoder.decode(bytes, { stream: true });
    const out: SseEvent[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      // A lone trailing \r may be the first half of \r\n: wait for the next piece.
      if (this.buffer[nl] === '\r' && nl === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + (this.buffer.startsWith('\r\n', nl) ? 2 : 1));
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === '') {
      const ev = this.data.length > 0 ? { event: this.event, data: this.data.join('\n') } : null;
      this.event = '';
      this.data = [];
      return ev;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    return null;
  }
}

/** SSE as a `Framing`: one parser per response. */
export const SSE_FRAMING: Framing<SseEvent> = {
  accept: 'text/event-stream',
  async *frames(chunks) {
    const parser = new SseParser();
    for await (const chunk of chunks) yield* parser.push(chunk);
  },
};
