import { HttpError, RecurError, ScopeError, toErrorReply } from '../../errors';
import { request } from 'node:http';
import { type HostBridge, startHostBridge } from '../../services/host-bridge';
import { openOn } from '../helpers/bridge-socket';

describe('host bridge dispatch', () => {
  let bridge: HostBridge;
  let token: string;
  let socket: string;
  let post: Awaited<ReturnType<typeof openOn>>['request'];
  const call = async (body: unknown) => {
    const r = await post({ headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return r as { status: number; body: { result?: unknown; error: { name: string; message: string } } };
  };

  beforeEach(async () => {
    bridge = await startHostBridge();
    ({ token, socket, request: post } = await openOn(bridge, 'root/child'));
  });
  afterEach(() => bridge.close());

  test('routes each op to its handler with the session and args', async () => {
    const seen: unknown[] = [];
    bridge.handle('rlm.spawn', async (sessionId, args, ctx) => {
      seen.push({ sessionId, args, rid: ctx.rid });
      return { id: 'c1', name: 'n' };
    });
    bridge.handle('final', async () => undefined);
    expect(await call({ op: 'rlm.spawn', args: { task: 't' }, rid: 'r1' })).toEqual({ status: 200, body: { result: { id: 'c1', name: 'n' } } });
    expect(await call({ op: 'final', args: { value: 1 } })).toEqual({ status: 200, body: { result: null } });
    expect(seen).toEqual([{ sessionId: 'root/child', args: { task: 't' }, rid: 'r1' }]);
  });

  test('an op can have only one handler', () => {
    bridge.handle('x', async () => 1);
    expect(() => bridge.handle('x', async () => 2)).toThrow(/already has a handler/);
  });

  test('unknown ops and malformed bodies are refused with 404 and 400', async () => {
    expect(await call({ op: 'nope' })).toEqual({ status: 404, body: { error: { name: 'UnknownOpError', message: 'unknown op "nope"' } } });
    expect((await call('{not json')).status).toBe(400);
    expect((await call([1])).body.error.message).toBe('body must be a JSON object');
    expect((await call({ op: 'x', args: 3 })).body.error.message).toBe('"args" must be an object');
  });

  test("a handler's error comes back as {error: {name, message}} with a status that matches it", async () => {
    bridge.handle('scope', async () => {
      throw new ScopeError('sibling:z is not in your family');
    });
    bridge.handle('boom', async () => {
      throw new TypeError('bad thing');
    });
    bridge.handle('teapot', async () => {
      throw new HttpError(418, 'short and stout', 'TeapotError');
    });
    expect(await call({ op: 'scope' })).toEqual({ status: 403, body: { error: { name: 'ScopeError', message: 'sibling:z is not in your family' } } });
    expect(await call({ op: 'boom' })).toEqual({ status: 500, body: { error: { name: 'TypeError', message: 'bad thing' } } });
    expect(await call({ op: 'teapot' })).toEqual({ status: 418, body: { error: { name: 'TeapotError', message: 'short and stout' } } });
  });

  test('error mapping: retryable Recur errors are 503, other Recur errors 422, non-errors 500', () => {
    expect(toErrorReply(new RecurError('busy', { retryable: true })).status).toBe(503);
    expect(toErrorReply(new RecurError('refused')).status).toBe(422);
    expect(toErrorReply('text')).toEqual({ status: 500, body: { error: { name: 'Error', message: 'text' } } });
  });

  test('a result that is not JSON is a 500, not a crash', async () => {
    bridge.handle('big', async () => ({ n: BigInt(1) }));
    const r = await call({ op: 'big' });
    expect(r.status).toBe(500);
    expect(r.body.error.message).toMatch(/result is not JSON/);
  });

  test("a handler's signal aborts when the kernel drops the request", async () => {
    const aborted = new Promise<boolean>((resolve) => {
      bridge.handle('wait', (_s, _a, ctx) => new Promise(() => ctx.signal.addEventListener('abort', () => resolve(true))));
    });
    const req = request({ socketPath: socket, path: '/rpc', method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` } });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ op: 'wait' }));
    setTimeout(() => req.destroy(), 100);
    expect(await aborted).toBe(true);
  });
});
