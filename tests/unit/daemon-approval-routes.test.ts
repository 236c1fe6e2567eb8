import { fakeSessions, startTestServer, type TestServer } from '../helpers/daemon-test-server';
import type { SessionService } from '../../services/daemon/session-service';

describe('daemon approval routes', () => {
  let srv: TestServer;
  let fake: ReturnType<typeof fakeSessions>;
  afterEach(() => srv.close());

  const start = async (over: Partial<SessionService> = {}) => {
    fake = fakeSessions(['r1', 'r1/helper']);
    srv = await startTestServer({ sessions: { ...fake.service, ...over } });
  };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${srv.url}${path}`, {
      method, headers: { authorization: `Bearer ${srv.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { approval?: Record<string, unknown> } & Record<string, unknown> };
  };

  it('POST /v1/approvals/<id> sends the decision to the session the id names, with who and why', async () => {
    await start();
    const { status, body } = await call('POST', `/v1/approvals/${encodeURIComponent('r1/helper/7')}`, { decision: 'deny', by: 'ana', reason: 'not today' });
    expect(status).toBe(200);
    expect(body.approval).toMatchObject({ id: 'r1/helper/7', status: 'denied', by: 'ana', reason: 'not today' });
    expect(fake.calls.requests).toEqual([['r1/helper', { id: 'r1/helper/7', decision: 'denied', by: 'ana', reason: 'not today' }]]);
  });

  it('answers 409 when the session says the approval was decided already, 404 for a session not running, 400 for a bad body', async () => {
    await start({ decideApproval: async () => ({ ok: false, reason: 'r1/3 was already approved by ana' }) });
    expect(await call('POST', `/v1/approvals/${encodeURIComponent('r1/3')}`, { decision: 'approve' }))
      .toEqual({ status: 409, body: { error: { name: 'ConflictError', message: 'r1/3 was already approved by ana' } } });
    await srv.close();
    await start();
    expect((await call('POST', `/v1/approvals/${encodeURIComponent('r9/3')}`, { decision: 'approve' })).status).toBe(404);
    expect((await call('POST', `/v1/approvals/${encodeURIComponent('r1/3')}`, { decision: 'maybe' })).status).toBe(400);
    expect((await call('POST', '/v1/approvals/r1', { decision: 'approve' })).status).toBe(400);
  });

  it('GET /v1/approvals lists what the sessions report open', async () => {
    const open = [{ id: 'r1/4', sessionId: 'r1', kind: 'egress', detail: 'example.com:443', requestedAt: 5 }];
    await start({ approvals: async () => open });
    expect(await call('GET', '/v1/approvals')).toEqual({ status: 200, body: { approvals: open } });
  });
});
