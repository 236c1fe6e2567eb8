import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import type { StoredEvent } from '../../schemas';
import type { FollowItem } from '../../services/projector';
import type { DeltaFrame, LiveFrame } from '../../services/daemon/api-types';
import { createDeltaHub } from '../../services/daemon/delta-hub';
import { streamSessionEvents, type FollowLog } from '../../services/daemon/event-stream';
import { createWorkerSupervisor } from '../../services/daemon/worker-supervisor';
import { ipcDeltaSink } from '../../services/worker/delta-channel';
import { sampleSession } from './event-samples';

const delta = (sessionId: string, text: string): DeltaFrame => ({ kind: 'delta', sessionId, turn: 0, text });

describe('delta hub', () => {
  it('gives each listener the deltas of its tree only, and ignores anything that is not a delta', () => {
    const hub = createDeltaHub();
    const root: DeltaFrame[] = [];
    const kid: DeltaFrame[] = [];
    hub.subscribe('r1', (d) => root.push(d));
    const stop = hub.subscribe('r1/kid', (d) => kid.push(d));
    hub.publish(delta('r1', 'a'));
    hub.publish(delta('r1/kid', 'b'));
    hub.publish(delta('r10', 'not r1\'s'));
    hub.publish({ kind: 'delta', sessionId: 'r1', text: 7 });
    hub.publish('junk');
    stop();
    hub.publish(delta('r1/kid', 'c'));
    expect(root.map((d) => d.text)).toEqual(['a', 'b', 'c']);
    expect(kid.map((d) => d.text)).toEqual(['b']);
  });
});

describe('the worker\'s delta channel', () => {
  it('has no sink without an IPC channel, and sends deltas over one while connected', () => {
    expect(ipcDeltaSink({ send: undefined } as unknown as NodeJS.Process)).toBeUndefined();
    const sent: unknown[] = [];
    const proc = { connected: true, send: (m: unknown) => sent.push(m) } as unknown as NodeJS.Process & { connected: boolean };
    const sink = ipcDeltaSink(proc)!;
    sink({ sessionId: 'r1', turn: 2, text: 'hi' });
    proc.connected = false;
    sink({ sessionId: 'r1', turn: 2, text: 'gone' });
    expect(sent).toEqual([{ kind: 'delta', sessionId: 'r1', turn: 2, text: 'hi' }]);
  });

  it('the supervisor hands what its worker process sends to onMessage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-ipc-'));
    const got = new Promise<unknown>((resolve) => {
      const s = createWorkerSupervisor({
        command: { cmd: process.execPath, args: ['-e', "process.send({kind:'delta',sessionId:'r1',turn:0,text:'x'}); setInterval(() => {}, 1000)"] },
        env: process.env, logFile: join(dir, 'worker.log'), pidFile: join(dir, 'worker.pid'), graceMs: 2000, log: () => undefined,
        onMessage: (m) => {
          resolve(m);
          void s.stop();
        },
      });
      s.start();
    });
    expect(await got).toEqual(delta('r1', 'x'));
  });
});

describe('event stream with deltas', () => {
  const events = sampleSession('r1').records as StoredEvent[];
  let server: Server;
  let url: string;
  const hub = createDeltaHub();
  let subscribed: () => void;

  /** One event, then (once the test has published its deltas) another. */
  const follow = (released: Promise<void>): FollowLog => async function* (_id, signal) {
    yield { kind: 'event', event: events[0] } satisfies FollowItem;
    await released;
    yield { kind: 'event', event: events[1] } satisfies FollowItem;
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
  };

  async function frames(query: string, count: number): Promise<LiveFrame[]> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const ready = new Promise<void>((resolve) => (subscribed = resolve));
    const wss = new WebSocketServer({ noServer: true });
    server = createServer();
    server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => {
      const withDeltas = new URL(req.url!, 'http://x').searchParams.get('deltas') === '1';
      void streamSessionEvents(ws, follow(released), 'r1', {}, undefined, withDeltas ? hub : undefined);
      subscribed();
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const ws = new WebSocket(`${url}${query}`);
    const got: LiveFrame[] = [];
    const done = new Promise<void>((resolve) => ws.on('message', (data) => {
      got.push(JSON.parse(data.toString()));
      if (got.length === 1) {
        hub.publish(delta('r1', 'streamed '));
        hub.publish(delta('r1', 'text'));
        release();
      }
      if (got.length === count) resolve();
    }));
    await ready;
    await done;
    ws.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return got;
  }

  it('?deltas=1 gets the tree\'s deltas between its events, as they are published', async () => {
    const got = await frames('?deltas=1', 4);
    expect(got.map((f) => ('kind' in f ? `${f.kind}:${(f as DeltaFrame).text}` : (f as StoredEvent).type)))
      .toEqual([events[0].type, 'delta:streamed ', 'delta:text', events[1].type]);
  });

  it('a stream opened without it gets the events alone', async () => {
    const got = await frames('', 2);
    expect(got.map((f) => (f as StoredEvent).type)).toEqual([events[0].type, events[1].type]);
  });
});
