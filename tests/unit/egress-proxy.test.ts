import { mkdtempSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { netAllows, parseNetPolicy } from '../../config';
import { createEgressProxy, parseTarget, type EgressProxy } from '../../services/sandbox';
import type { ConnectionRecord } from '../../workflows/network-handlers';

describe('network policies', () => {
  test('parse none, full and allow lists; refuse anything else naming the bad part', () => {
    expect(parseNetPolicy('none')).toEqual({ kind: 'none' });
    expect(parseNetPolicy(' FULL ')).toEqual({ kind: 'full' });
    expect(parseNetPolicy('allow:PyPI.org,files.pythonhosted.org:443,10.0.0.7:8080')).toEqual({ kind: 'allow', entries: [
      { host: 'pypi.org', port: null }, { host: 'files.pythonhosted.org', port: 443 }, { host: '10.0.0.7', port: 8080 }] });
    for (const bad of ['open', 'allow:', 'allow:a b', 'allow:host:0', 'allow:host:70000', 'allow:-x.org', 'allow:a.org:80:1']) {
      expect(parseNetPolicy(bad)).toHaveProperty('error');
    }
  });

  test('an allow list matches host and port; full lets any destination through for the local-address check', () => {
    const allow = parseNetPolicy('allow:pypi.org,example.org:443') as Exclude<ReturnType<typeof parseNetPolicy>, { error: string }>;
    expect([netAllows(allow, 'PYPI.org', 8443), netAllows(allow, 'example.org', 443), netAllows(allow, 'example.org', 80)]).toEqual(['listed', 'listed', false]);
    expect(netAllows({ kind: 'none' }, 'pypi.org', 443)).toBe(false);
    expect(netAllows({ kind: 'full' }, 'pypi.org', 443)).toBe('public');
  });
});

describe('egress proxy request heads', () => {
  test('CONNECT and absolute http:// requests name their destination; the plain request is rewritten to origin form', () => {
    expect(parseTarget('CONNECT Example.org:443 HTTP/1.1\r\nHost: x\r\n\r\n')).toMatchObject({ host: 'example.org', port: 443, tunnel: true });
    expect(parseTarget('GET http://a.org:8080/p?q=1 HTTP/1.1\r\nHost: a.org\r\n\r\n')).toEqual({
      host: 'a.org', port: 8080, tunnel: false, rest: 'GET /p?q=1 HTTP/1.1\r\nHost: a.org\r\n\r\n' });
    expect(parseTarget('GET /relative HTTP/1.1\r\n\r\n')).toHaveProperty('error');
    expect(parseTarget('GET https://a.org/ HTTP/1.1\r\n\r\n')).toHaveProperty('error');
    expect(parseTarget('garbage')).toHaveProperty('error');
  });
});

/** The proxy on a real Unix socket, in front of a real TCP server on 127.0.0.2 (a local address). */
describe('egress proxy (real sockets, fake policy and gate)', () => {
  let target: Server;
  let port: number;
  let proxy: EgressProxy;
  let socket: string;
  let policy = 'none';
  let approval: { decision: ConnectionRecord['decision']; approvalId: string | null; reason: string };
  const records: ConnectionRecord[] = [];
  const asked: string[] = [];

  beforeAll(async () => {
    target = createServer((s) => s.on('data', (d) => s.write(`echo:${d.toString()}`)));
    await new Promise<void>((r) => target.listen(0, '127.0.0.2', () => r()));
    port = (target.address() as { port: number }).port;
  });
  beforeEach(async () => {
    records.splice(0);
    asked.splice(0);
    approval = { decision: 'denied', approvalId: 's/7', reason: 'not today' };
    proxy = createEgressProxy({
      policyOf: async () => policy,
      approve: async (_s, detail) => (asked.push(detail), approval),
      record: async (_s, c) => void records.push(c),
    });
    socket = join(mkdtempSync(join(tmpdir(), 'recur-egress-')), 'egress');
    await proxy.open('s', socket);
  });
  afterEach(() => proxy.closeAll());
  afterAll(() => new Promise<void>((r) => target.close(() => r())));

  /** Sends `head`, then `payload` once the proxy answers; resolves with everything received. */
  const through = (head: string, payload = '') => new Promise<string>((resolve) => {
    const c = connect(socket);
    let got = '';
    c.on('data', (d) => {
      got += d.toString();
      if (payload && got.includes('200 Connection Established') && !got.includes('echo:')) c.write(payload);
      if (got.includes('echo:') || got.includes('\r\n\r\n') && !got.includes(' 200 ')) setTimeout(() => c.end(), 20);
    });
    c.on('close', () => resolve(got));
    c.write(head);
  });

  test('a destination the policy names is tunnelled, logged first, and never asked about', async () => {
    policy = `allow:127.0.0.2:${port}`;
    const got = await through(`CONNECT 127.0.0.2:${port} HTTP/1.1\r\n\r\n`, 'ping');
    expect(got).toContain('HTTP/1.1 200 Connection Established');
    expect(got).toContain('echo:ping');
    expect(asked).toEqual([]);
    expect(records).toEqual([{ host: '127.0.0.2', port, address: '127.0.0.2', decision: 'allowed', policy, approvalId: null, reason: '' }]);
  });

  test('under full, a local address is refused outright even when an operator would approve', async () => {
    policy = 'full';
    const got = await through(`CONNECT 127.0.0.2:${port} HTTP/1.1\r\n\r\n`, 'ping');
    expect(got).toMatch(/^HTTP\/1.1 403 Forbidden/);
    expect(got).not.toContain('echo:');
    expect(records[0]).toMatchObject({ decision: 'refused', reason: expect.stringContaining('local address') });
  });

  test('beyond the policy the gate decides: a denial is a 403 naming the reason, logged with its approval', async () => {
    policy = 'none';
    const got = await through(`GET http://127.0.0.2:${port}/x HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n`);
    expect(got).toMatch(/^HTTP\/1.1 403 Forbidden[\s\S]*not today/);
    expect(asked).toEqual([`127.0.0.2:${port}`]);
    expect(records).toEqual([expect.objectContaining({ decision: 'denied', approvalId: 's/7', reason: 'not today' })]);
  });

  test('an approval does not lift the local-address rule: only a policy naming the destination reaches one', async () => {
    policy = 'none';
    approval = { decision: 'approved', approvalId: 's/9', reason: '' };
    expect(await through(`GET http://127.0.0.2:${port}/x HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n`)).toMatch(/^HTTP\/1.1 403/);
    expect(records[0]).toMatchObject({ decision: 'refused', approvalId: 's/9' });
  });

  test('an approved plain request to a public address goes through rewritten to origin form, logged as approved', async () => {
    await proxy.closeAll();
    // This machine has no public address to reach: the test server stands in for one.
    proxy = createEgressProxy({ policyOf: async () => 'none', approve: async () => approval, record: async (_s, c) => void records.push(c), isLocal: () => false });
    await proxy.open('s', socket);
    approval = { decision: 'approved', approvalId: 's/9', reason: '' };
    const got = await through(`GET http://127.0.0.2:${port}/x HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n`);
    expect(got).toBe('echo:GET /x HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n');
    expect(records).toEqual([expect.objectContaining({ decision: 'approved', approvalId: 's/9', address: '127.0.0.2' })]);
  });

  test('a plain request to a destination the policy names is rewritten to origin form', async () => {
    policy = `allow:127.0.0.2:${port}`;
    expect(await through(`GET http://127.0.0.2:${port}/y HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n`)).toBe('echo:GET /y HTTP/1.1\r\nHost: 127.0.0.2\r\n\r\n');
  });

  test('a request that is not a proxy request is a 400 and is not logged', async () => {
    expect(await through('hello\r\n\r\n')).toMatch(/^HTTP\/1.1 400/);
    expect(records).toEqual([]);
  });
});
