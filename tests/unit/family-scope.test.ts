import { checkAgentName, checkChildId, resolveRecipient } from '../../workflows/check-family-scope';

describe('family scope: parent, siblings and children only', () => {
  const kids = ['alpha', 'beta'];

  it('resolves parent, child and sibling by role', () => {
    expect(resolveRecipient('r/a', 'parent', [])).toEqual({ ok: true, targetId: 'r' });
    expect(resolveRecipient('r', 'child:alpha', kids)).toEqual({ ok: true, targetId: 'r/alpha' });
    expect(resolveRecipient('r/a', 'sibling:b', [])).toEqual({ ok: true, targetId: 'r/b' });
  });

  it('accepts family members by full session id', () => {
    expect(resolveRecipient('r/a', 'r', [])).toEqual({ ok: true, targetId: 'r' });
    expect(resolveRecipient('r', 'r/beta', kids)).toEqual({ ok: true, targetId: 'r/beta' });
    expect(resolveRecipient('r/a', 'r/b', [])).toEqual({ ok: true, targetId: 'r/b' });
  });

  it.each([
    ['r', 'parent', [], /root session and has no parent/],
    ['r', 'sibling:x', [], /no siblings/],
    ['r', 'child:gamma', kids, /no child named "gamma"/],
    ['r/a', 'sibling:a', [], /not a sibling/],
    ['r/a', 'r/a', [], /not in r\/a's family/],
    ['r/a', 'r/a/b/c', ['b'], /not in/],
    ['r/a', 'other', [], /not in/],
    ['r/a/b', 'r', [], /not in/],
    ['r', 'r/gamma', kids, /not in/],
    ['r', 'grandchild:x', kids, /not in/],
  ])('refuses %s → %s', (self, to, children, reason) => {
    const r = resolveRecipient(self, to, children as string[]);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });

  it('agent names start with a letter and cannot traverse or look like a seq', () => {
    expect(checkAgentName('reviewer-2')).toBeNull();
    for (const bad of ['', '2', '../x', 'a/b', 'A', 'x'.repeat(41)]) expect(checkAgentName(bad)).toMatch(/invalid agent name/);
  });
});

describe('child session ids', () => {
  it('refuses a child whose id would pass the envelope limit of 1024 characters, naming it', () => {
    const deep = Array.from({ length: 25 }, (_, i) => `a${i}`.padEnd(40, 'x')).join('/');
    expect(checkChildId(`${deep.slice(0, 1000)}/kid`)).toBeNull();
    expect(checkChildId(`${deep}/kid`)).toBe(`the child's session id would be ${deep.length + 4} characters, over the 1024-character limit`);
  });
});
