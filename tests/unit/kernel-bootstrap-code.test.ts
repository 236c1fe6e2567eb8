import { bootstrapCode } from '../../activities/kernel/bootstrap-code';

describe('kernel bootstrap code', () => {
  const base = { sessionId: 'root/a', hostUrl: 'http://127.0.0.1:4000', token: 'ab'.repeat(32) };

  test('passes every value inside one JSON document, so no value can escape into code', () => {
    const nasty = `x")\nimport os; os.system("boom")#\\'"""`;
    const code = bootstrapCode({ ...base, sessionId: nasty, env: { K: nasty } });
    expect(code.split('\n')).toHaveLength(1);
    const literal = /json'\)\.loads\((".*")\)\)$/.exec(code)![1];
    expect(JSON.parse(JSON.parse(literal))).toEqual({ url: base.hostUrl, session_id: nasty, token: base.token, env: { K: nasty } });
  });

  test('binds without assigning any name in the user namespace', () => {
    const code = bootstrapCode({ ...base, pythonPath: '/repo/kernel' });
    expect(code).not.toMatch(/^\s*(import|from)\s|^[A-Za-z_]\w*\s*=/m);
    expect(code.split('\n')[0]).toBe(`"/repo/kernel" in __import__('sys').path or __import__('sys').path.insert(0, "/repo/kernel")`);
  });

  test('a client without a bridge binds the session with no host', () => {
    expect(bootstrapCode({ sessionId: 's', hostUrl: null, token: null })).toContain('\\"url\\":null');
  });
});
