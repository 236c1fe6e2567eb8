import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeReply, SseReply } from './fake-sse-server';

/**
 * Recorded provider replies, replayed by the fake SSE server. A fixture under
 * tests/fixtures/providers/<provider>/ opens with `#` lines (the docs it follows; `# status: N`
 * and `# header: name: value` for an HTTP error), then holds the body exactly as the API sends
 * it: SSE frames for a 200, the error JSON otherwise.
 */

const ROOT = join(__dirname, '..', 'fixtures', 'providers');

export function fixtureText(provider: string, name: string): { header: string[]; body: string } {
  const text = readFileSync(join(ROOT, provider, name), 'utf8');
  const header = text.match(/^(?:#[^\n]*\n)*/)![0];
  return { header: header.split('\n').filter(Boolean).map((l) => l.replace(/^#\s?/, '').trimEnd()), body: text.slice(header.length) };
}

/** A 200 fixture as SSE frames, each with its closing blank line, so tests can cut the stream between them. */
export function sseFixture(provider: string, name: string, edit: (body: string) => string = (b) => b): SseReply {
  const body = edit(fixtureText(provider, name).body);
  return { type: 'sse', frames: body.split(/(?<=\r?\n\r?\n)/) };
}

export function errorFixture(provider: string, name: string): FakeReply {
  const { header, body } = fixtureText(provider, name);
  const status = Number(header.find((l) => l.startsWith('status:'))?.slice('status:'.length));
  if (!Number.isInteger(status)) throw new Error(`${provider}/${name}: no "# status:" line`);
  const headers = Object.fromEntries(
    header.filter((l) => l.startsWith('header:')).map((l) => {
      const [name, ...value] = l.slice('header:'.length).split(':');
      return [name.trim(), value.join(':').trim()];
    }),
  );
  return { type: 'json', status, headers, body: JSON.parse(body) };
}

/** The stream without its last `drop` frames: what a connection cut before the end delivers. */
export function cutShort(reply: SseReply, drop: number): SseReply {
  return { ...reply, frames: reply.frames.slice(0, -drop) };
}
