import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config';
import { refuseShadowingSkills } from '../../activities/harness/module-names';
import { approvalSession, parseDecision } from '../../services/daemon/approval-routes';
import { refineMode } from '../../services/worker/harness-ops';
import { ApprovalBook } from '../../workflows/approvals/approval-book';
import { DEFAULT_APPROVAL_POLICY, decideApproval, decideSpend, matchesPattern, type ApprovalPolicy } from '../../workflows/approvals/approval-policy';

const policy = (over: Partial<ApprovalPolicy> = {}): ApprovalPolicy => ({ ...DEFAULT_APPROVAL_POLICY, ...over });

describe('approval policy decisions', () => {
  it('by default a global harness edit, spending and egress wait for an operator; anything else goes ahead', () => {
    expect(decideApproval(policy(), 'harness-global', 'create memory "x"')).toEqual({ action: 'ask' });
    expect(decideApproval(policy(), 'egress', 'example.com:443')).toEqual({ action: 'ask' });
    expect(decideApproval(policy(), 'spend', 'past the threshold')).toEqual({ action: 'ask' });
    expect(decideApproval(policy(), 'command', 'ls -la')).toEqual({ action: 'allow' });
    expect(decideApproval(policy({ require: [] }), 'harness-global', 'x')).toEqual({ action: 'allow' });
  });

  it('unattended (CI mode), what would wait for an operator is denied, ends the run or waits a bounded time, per kind; the rest is as ever', () => {
    const ci = policy({ unattended: true, require: [...DEFAULT_APPROVAL_POLICY.require, 'sensitive-path'] });
    const why = (kind: string) => `${kind} "x" needs an operator's yes, and in CI mode nobody is there to give it`;
    for (const kind of ['harness-global', 'egress']) {
      expect(decideApproval(ci, kind, 'x')).toEqual({ action: 'refuse', reason: `${why(kind)}: the policy denies it and the run goes on (docs/approvals.md)` });
    }
    // By default, spending on and a changed CI workflow end the run.
    for (const kind of ['spend', 'sensitive-path']) {
      expect(decideApproval(ci, kind, 'x')).toEqual({ action: 'refuse', ends: true, reason: `${why(kind)}: the policy ends the run (approvals.ci.${kind} is "end", docs/approvals.md)` });
    }
    const waits = policy({ unattended: true, ci: { egress: 'wait', spend: 'deny' }, ciWaitSeconds: 600 });
    expect(decideApproval(waits, 'egress', 'x')).toEqual({ action: 'ask', waitSeconds: 600 });
    expect(decideApproval(waits, 'spend', 'x')).toMatchObject({ action: 'refuse', reason: expect.stringContaining('denies it') });
    expect(decideApproval(waits, 'egress', 'x')).not.toHaveProperty('ends');
    // Attended, the CI answers change nothing.
    expect(decideApproval(policy({ ci: { egress: 'end' } }), 'egress', 'x')).toEqual({ action: 'ask' });
    expect(decideApproval(ci, 'command', 'ls')).toEqual({ action: 'allow' });
    expect(decideApproval(ci, 'egress', '169.254.169.254:80')).toMatchObject({ action: 'refuse', reason: expect.stringContaining('refused outright') });
  });

  it('refuses listed hosts and commands outright, before any operator is asked, naming the rule', () => {
    const refused = decideApproval(policy(), 'egress', '169.254.169.254:80');
    expect(refused).toEqual({ action: 'refuse', reason: expect.stringContaining('rule "169.254.169.254:*"') });
    expect(decideApproval(policy(), 'egress', 'METADATA.google.internal')).toMatchObject({ action: 'refuse' });
    expect(decideApproval(policy(), 'command', 'sudo rm -rf /home')).toMatchObject({ action: 'refuse' });
    // Refusals hold even where the kind needs no approval at all.
    expect(decideApproval(policy({ require: [] }), 'command', 'rm -rf /')).toMatchObject({ action: 'refuse' });
    // Host patterns do not leak across kinds: a command naming the host is only a command.
    expect(decideApproval(policy(), 'command', '169.254.169.254')).toEqual({ action: 'allow' });
  });

  it('patterns match the whole text, * any run, everything else literally', () => {
    expect(matchesPattern('*.internal', 'db.internal')).toBe(true);
    expect(matchesPattern('*.internal', 'db.internal.example.com')).toBe(false);
    expect(matchesPattern('a.b', 'axb')).toBe(false);
    expect(matchesPattern('rm -rf /', 'rm -rf /tmp/x')).toBe(false);
    expect(matchesPattern('(x)+', '(x)+')).toBe(true);
  });

  it('spending asks once a threshold is passed since the last approved mark, and not while spend needs no approval', () => {
    const p = policy({ spendTokens: 1000, spendCostUsd: 1 });
    const zero = { tokens: 0, costUsd: 0 };
    expect(decideSpend(p, { tokens: 999, costUsd: 0.5 }, zero)).toBeNull();
    expect(decideSpend(p, { tokens: 1000, costUsd: 0 }, zero)).toMatch(/spent 1000 tokens/);
    expect(decideSpend(p, { tokens: 10, costUsd: 1.5 }, zero)).toMatch(/\$1\.5000/);
    expect(decideSpend(p, { tokens: 1500, costUsd: 0 }, { tokens: 1000, costUsd: 0 })).toBeNull();
    expect(decideSpend(policy({ spendTokens: 0, spendCostUsd: 0 }), { tokens: 1e9, costUsd: 1e6 }, zero)).toBeNull();
    expect(decideSpend(policy({ require: ['harness-global'], spendTokens: 1 }), { tokens: 5, costUsd: 0 }, zero)).toBeNull();
  });
});

describe('approval book', () => {
  it('answers a repeated key with the first request and remembers a decision after it leaves the open list', () => {
    const book = new ApprovalBook();
    book.requested({ id: 's/4', status: 'pending', kind: 'egress', detail: 'h:1' }, 's', 10, 'rid1');
    expect(book.byKey('rid1')).toMatchObject({ id: 's/4', status: 'pending' });
    expect([...book.open.keys()]).toEqual(['s/4']);
    book.settled({ id: 's/4', status: 'denied', kind: 'egress', detail: 'h:1', by: 'ops', reason: 'no' });
    expect(book.open.size).toBe(0);
    expect(book.answer('s/4')).toMatchObject({ status: 'denied', by: 'ops' });
    const carried = new ApprovalBook(JSON.parse(JSON.stringify(book.carry())));
    expect(carried.byKey('rid1')).toMatchObject({ status: 'denied' });
  });

  it('keeps a bounded number of decided approvals, and the keys of those it forgets go too', () => {
    const book = new ApprovalBook();
    for (let i = 0; i < 100; i++) {
      book.requested({ id: `s/${i}`, status: 'refused', kind: 'command', detail: 'x', by: 'policy' }, 's', i, `k${i}`);
    }
    expect(book.answer('s/0')).toBeNull();
    expect(book.byKey('k0')).toBeNull();
    expect(book.answer('s/99')).toMatchObject({ status: 'refused' });
    expect(book.carry().decided.length).toBe(64);
    expect(book.carry().keys.length).toBe(64);
  });
});

describe('refine mode and skill names', () => {
  it('a kernel may make a refine stricter than the operator set it, never looser', () => {
    expect(refineMode('approve', 'auto')).toBe('approve');
    expect(refineMode('approve', undefined)).toBe('approve');
    expect(refineMode('auto', 'approve')).toBe('approve');
    expect(refineMode('auto', 'auto')).toBe('auto');
    expect(refineMode('auto', null)).toBe('auto');
  });

  it('a skill created or updated under a module name carries a refusal; deletes and other kinds pass', async () => {
    const names = async () => new Set(['json', 'numpy', 'recur_kernel']);
    const out = await refuseShadowingSkills([
      { action: 'create', kind: 'skill', name: 'json', value: {} },
      { action: 'update', kind: 'skill', name: 'recur_kernel', value: {} },
      { action: 'create', kind: 'skill', name: 'adder', value: {} },
      { action: 'delete', kind: 'skill', name: 'numpy' },
      { action: 'create', kind: 'memory', name: 'json', value: { text: 'x' } },
    ], names);
    expect(out.map((e) => e.refusal ?? null)).toEqual([
      expect.stringContaining('"json" is the name of a standard-library or installed Python module'),
      expect.stringContaining('"recur_kernel"'), null, null, null,
    ]);
  });

  it('no module list is asked for when no skill is written', async () => {
    const names = jest.fn(async () => new Set<string>());
    await refuseShadowingSkills([{ action: 'create', kind: 'memory', name: 'os', value: { text: '' } }], names);
    expect(names).not.toHaveBeenCalled();
  });
});

describe('approval requests at the daemon and in config', () => {
  it('an approval id names its session; a decision body is checked', () => {
    expect(approvalSession('r0abc123def456/kid/12')).toBe('r0abc123def456/kid');
    expect(() => approvalSession('r0abc123def456')).toThrow(/not an approval id/);
    expect(() => approvalSession('r0abc123def456/kid')).toThrow(/not an approval id/);
    expect(parseDecision('a/1', { decision: 'deny', by: 'ops', reason: 'no egress' })).toEqual({ id: 'a/1', decision: 'denied', by: 'ops', reason: 'no egress' });
    expect(parseDecision('a/1', { decision: 'approve' })).toEqual({ id: 'a/1', decision: 'approved', by: 'operator', reason: '' });
    expect(() => parseDecision('a/1', { decision: 'yes' })).toThrow(/approve" or "deny/);
    expect(() => parseDecision('a/1', { decision: 'deny', reason: 'x'.repeat(2001) })).toThrow(/limit is 2000/);
  });

  it('RECUR_APPROVAL_POLICY merges a JSON file over the defaults; RECUR_APPROVAL_SPEND_* win over it', () => {
    const home = mkdtempSync(join(tmpdir(), 'recur-policy-'));
    const file = join(home, 'policy.json');
    writeFileSync(file, JSON.stringify({ require: ['harness-global'], refuseHosts: ['*.corp'], spendTokens: 10 }));
    const { config, errors } = parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: file, RECUR_APPROVAL_SPEND_USD: '3' });
    expect(errors).toEqual([]);
    expect(config.approvals).toEqual({
      ...DEFAULT_APPROVAL_POLICY, require: ['harness-global'], refuseHosts: ['*.corp'], spendTokens: 10, spendCostUsd: 3, policyFile: file,
    });
    expect(parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: file, RECUR_APPROVAL_SPEND_TOKENS: '7' }).config.approvals.spendTokens).toBe(7);
  });

  it('a policy file that is missing, not JSON or of the wrong shape is a config error naming the setting', () => {
    const home = mkdtempSync(join(tmpdir(), 'recur-policy-'));
    const bad = join(home, 'bad.json');
    writeFileSync(bad, JSON.stringify({ require: 'harness-global' }));
    expect(parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: bad }).errors).toEqual([expect.stringMatching(/^RECUR_APPROVAL_POLICY .*approvals\.require must be an array of strings/)]);
    expect(parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: join(home, 'none.json') }).errors).toEqual([expect.stringMatching(/^RECUR_APPROVAL_POLICY .*ENOENT/)]);
    expect(parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_SPEND_USD: '-1' }).errors).toEqual([expect.stringMatching(/RECUR_APPROVAL_SPEND_USD/)]);
  });

  it("a policy file's CI answers merge kind by kind over the defaults; a wait needs its timeout, and an unknown answer is an error", () => {
    const home = mkdtempSync(join(tmpdir(), 'recur-policy-'));
    const write = (name: string, body: unknown) => {
      writeFileSync(join(home, name), JSON.stringify(body));
      return join(home, name);
    };
    const ok = parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: write('ok.json', { ci: { egress: 'end', 'harness-global': 'wait' }, ciWaitSeconds: 900 }) });
    expect(ok.errors).toEqual([]);
    expect(ok.warnings).toEqual([]);
    expect(ok.config.approvals.ci).toEqual({ spend: 'end', 'sensitive-path': 'end', egress: 'end', 'harness-global': 'wait' });
    expect(ok.config.approvals.ciWaitSeconds).toBe(900);
    const untimed = parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: write('untimed.json', { ci: { egress: 'wait' } }) });
    expect(untimed.errors).toEqual(['approvals.ci: egress wait(s) for an operator in CI mode, so approvals.ciWaitSeconds must say how long (above 0)']);
    const timedByEnv = parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: join(home, 'untimed.json'), RECUR_APPROVAL_CI_WAIT_SECONDS: '60' });
    expect(timedByEnv.errors).toEqual([]);
    expect(parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: write('bad.json', { ci: { egress: 'ask' } }) }).errors)
      .toEqual(['approvals.ci.egress: "ask" is not one of deny, end, wait']);
    expect(parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_POLICY: write('shape.json', { ci: ['end'] }) }).errors)
      .toEqual([expect.stringMatching(/^RECUR_APPROVAL_POLICY .*approvals\.ci must be an object of strings/)]);
    expect(parseConfig({ RECUR_HOME: home, RECUR_APPROVAL_CI_WAIT_SECONDS: '100000' }).errors).toEqual([expect.stringMatching(/RECUR_APPROVAL_CI_WAIT_SECONDS/)]);
  });
});
