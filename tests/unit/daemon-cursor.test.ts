import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import type { StoredEvent } from '../../schemas';
import type { FollowItem } from '../../services/projector';
import type { StreamFrame } from '../../services/daemon/api-types';
import { advanceCursor, isPastCursor, parseCursor } from '../../services/daemon/cursor';
import { SESSION_CLOSED, streamSessionEvents, toFrame, type FollowLog, type SessionClosed } from '../../services/daemon/event-stream';
import { sampleSession } from './event-samples';

const root = sampleSession('r1').records as StoredEvent[];
const child = sampleSession('r1/helper', [{ type: 'SessionCompleted', answer: 'checked' }]).records as StoredEvent[];
const item = (event: StoredEvent): FollowItem => ({ kind: 'event', event });

describe('stream cursor', () => {
  it('parses the after parameter and refuses anything but a map of integer seqs', () => {
    expect(parseCursor(null)).toEqual({ ok: true, cursor: {} });
    expect(parseCursor('{"r1":3,"r1/helper":-1}')).toEqual({ ok: true, cursor: { r1: 3, 'r1/helper': -1 } });
    for (const bad of ['[1]', '{"r1":"3"}', '{"r1":1.5}', '{"r1":-2}', 'r1=3', 'null']) {
      expect(parseCursor(bad)).toEqual({ ok: false, reason: expect.stringContaining('after') });
    }
  });

  it('skips events at or below the cursor, per session', () => {
    const cursor = { r1: 2 };
    expect(root.filter((e) => isPastCursor(cursor, e.sessionId, e.seq)).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(isPastCursor(cursor, 'r1/helper', 0)).toBe(true);
    expect(isPastCursor({}, 'constructor', 0)).toBe(true); // not fooled by inherited keys
    expect(toFrame(item(root[2]), cursor)).toBeNull();
    expect(toFrame(item(root[3]), cursor)).toBe(root[3]);
  });

  it('advances per session and never moves back', () => {
    let c = advanceCursor({}, 'r1', 4);
    c = advanceCursor(c, 'r1/helper', 0);
    expect(advanceCursor(c, 'r1', 2)).toEqual({ r1: 4, 'r1/helper': 0 });
  });

  it('turns undecodable records and conflicts into problem frames', () => {
    const bad = toFrame({ kind: 'undecodable', record: { partition: 1, offset: '7', key: 'r1', reason: 'bad magic' } }, { r1: 99 });
    expect(bad).toEqual({ kind: 'problem', problem: 'undecodable', partition: 1, offset: '7', key: 'r1', reason: 'bad magic' });
    const conflict = toFrame({ kind: 'conflict', conflict: { eventId: 'r1/2', partition: 0, offset: '9', keptHash: 'a', otherHash: 'b', other: root[2] } }, {});
    expect(conflict).toMatchObject({ kind: 'problem', problem: 'conflict', eventId: 'r1/2', reason: expect.stringContaining('r1/2') });
  });
});

describe('event stream over a WebSocket', () => {
  let server: Server;
  let url: string;
  let followEnded: Promise<void>;
  let resolveEnded: () => void;
  /** Closes the session's workflow, as far as the stream can tell. */
  let closeWorkflow: () => void;
  const closed: SessionClosed = () => new Promise<void>((resolve) => (closeWorkflow = resolve));

  /** History (root and child interleaved, plus one bad record), then nothing until the reader leaves. */
  const follow: FollowLog = async function* (_id, signal) {
    try {
      yield item(root[0]);
      yield item(child[0]);
      for (const e of root.slice(1)) yield item(e);
      yield { kind: 'undecodable', record: { partition: 0, offset: '12', key: 'r1', reason: 'not Avro' } };
      await new Promise((resolve) => signal.addEventListener('abort', resolve));
    } finally {
      resolveEnded();
    }
  };

  beforeEach(async () => {
    followEnded = new Promise((resolve) => (resolveEnded = resolve));
    const wss = new WebSocketServer({ noServer: true });
    server = createServer();
    server.on('upgrade', (req, socket, head) => {
      const cursor = JSON.parse(new URL(req.url!, 'http://x').searchParams.get('after') ?? '{}');
      wss.handleUpgrade(req, socket, head, (ws) => void streamSessionEvents(ws, follow, 'r1', cursor, closed));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function read(after: Record<string, number>, count: number): Promise<StreamFrame[]> {
    const ws = new WebSocket(`${url}?after=${encodeURIComponent(JSON.stringify(after))}`);
    const frames: StreamFrame[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        frames.push(JSON.parse(data.toString()));
        if (frames.length === count) resolve();
      });
      ws.on('error', reject);
    });
    ws.close();
    return frames;
  }

  it('sends each event past the cursor as a StoredEvent JSON frame, and problems as problem frames', async () => {
    const frames = await read({ r1: 3 }, 4);
    expect(frames.slice(0, 3)).toEqual([child[0], root[4], root[5]].map((e) => JSON.parse(JSON.stringify(e))));
    expect(frames[3]).toMatchObject({ kind: 'problem', problem: 'undecodable', offset: '12' });
    expect(frames[0]).toEqual(expect.objectContaining({ eventId: 'r1/helper/0', sessionId: 'r1/helper', seq: 0, type: 'SessionCompleted', prevHash: expect.any(String), hash: expect.any(String), event: { type: 'SessionCompleted', answer: 'checked', answerBlob: null } }));
  });

  it('ends the stream (1000, session closed) once the session\'s workflow has closed, even with no end event in the log', async () => {
    const ws = new WebSocket(`${url}?after={}`);
    let frames = 0;
    ws.on('message', () => {
      if (++frames === 8) closeWorkflow();
    });
    const [code, reason] = await new Promise<[number, string]>((resolve) => ws.on('close', (c, r) => resolve([c, r.toString()])));
    expect([code, reason]).toEqual([1000, SESSION_CLOSED]);
    await followEnded;
  });

  it('stops reading the log when the client closes', async () => {
    await read({}, 8);
    await followEnded; // resolves only through the generator's finally, i.e. the follow was aborted
  });
});
