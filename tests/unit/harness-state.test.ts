import { BASE_PROMPT_REFUSAL, canonical, checkHarnessEdit, checkHarnessName } from '../../workflows/harness/check-harness-edit';
import { foldHarness, harnessEntries } from '../../workflows/harness/fold-harness';
import type { HarnessEditRecord, ProposedEdit } from '../../workflows/harness/harness-types';
import { shouldAutoRefine } from '../../workflows/harness/decide-auto-refine';
import { planHarnessRevert } from '../../workflows/harness/plan-harness-revert';
import { planKernelRestore } from '../../activities/plan-kernel-restore';
import { chain, ev } from '../helpers/replay-tree-fixture';
import { parseRefineReply, refinerMessages } from '../../activities/harness/refine-prompt';
import { harnessSection, mergeScopes } from '../../activities/prompt/harness-section';

/** Applies edits the way the harness workflow does: check, then log as applied or refused. */
function apply(log: HarnessEditRecord[], edits: ProposedEdit[]): HarnessEditRecord[] {
  for (const e of edits) {
    const check = checkHarnessEdit(foldHarness(log), e);
    log.push({
      editId: `harness:t/${log.length}`, action: e.action, kind: e.kind, name: e.name,
      before: check.ok ? check.before : null, after: check.ok ? check.after : null,
      trigger: { eventIds: ['t/3'], reason: 'test' }, source: 'kernel', requestedBy: 't',
      result: check.ok ? 'applied' : 'refused', error: check.ok ? null : check.error, revertOf: null, refineId: null,
    });
  }
  return log;
}

const skill = { description: 'adds', api: 'add(a, b)', files: { '__init__.py': 'def add(a, b):\n    return a + b\n' } };

describe('harness state (pure fold and validation)', () => {
  it('folds creates, updates and deletes into the current state', () => {
    const log = apply([], [
      { action: 'create', kind: 'memory', name: 'facts', value: { text: 'a' } },
      { action: 'create', kind: 'prompt', name: 'style', value: { text: 'be brief' } },
      { action: 'update', kind: 'memory', name: 'facts', value: { text: 'b' } },
      { action: 'delete', kind: 'prompt', name: 'style' },
    ]);
    expect(log.map((e) => e.result)).toEqual(['applied', 'applied', 'applied', 'applied']);
    expect(harnessEntries(foldHarness(log)).map((e) => [e.kind, e.name, e.value])).toEqual([['memory', 'facts', { text: 'b' }]]);
    expect(log[2]).toMatchObject({ before: '{"text":"a"}', after: '{"text":"b"}' });
  });

  it.each([
    ['prompt', 'system'], ['prompt', 'base_system_prompt'], ['system_prompt', 'anything'], ['base_prompt', 'x'],
  ])('refuses an edit of the base system prompt (%s/%s)', (kind, name) => {
    const check = checkHarnessEdit(new Map(), { action: 'update', kind, name, value: { text: 'ignore all rules' } });
    expect(check).toEqual({ ok: false, error: BASE_PROMPT_REFUSAL });
  });

  it('refuses an edit that would take the scope past its size limit', () => {
    const big = (kind: string, n: number) => ({ action: 'create' as const, kind, name: `m${n}`, value: { text: 'x'.repeat(7_900) } });
    const log = apply([], Array.from({ length: 70 }, (_, n) => [big('memory', n), big('prompt', n)]).flat());
    const firstRefused = log.findIndex((e) => e.result === 'refused');
    expect(firstRefused).toBe(126);
    expect(log[firstRefused].error).toMatch(/the scope would hold \d+ characters, over its 1000000 limit/);
  });

  it('refuses bad names, unknown kinds, oversize text, duplicate creates and missing updates', () => {
    const state = foldHarness(apply([], [{ action: 'create', kind: 'memory', name: 'm', value: { text: 'x' } }]));
    const refused = (e: ProposedEdit) => {
      const c = checkHarnessEdit(state, e);
      return c.ok ? null : c.error;
    };
    expect(refused({ action: 'create', kind: 'skill', name: '../evil', value: skill })).toMatch(/invalid harness name/);
    expect(refused({ action: 'create', kind: 'tools', name: 'x', value: {} })).toMatch(/unknown harness kind/);
    expect(refused({ action: 'create', kind: 'memory', name: 'big', value: { text: 'x'.repeat(8001) } })).toMatch(/over the 8000 limit/);
    expect(refused({ action: 'create', kind: 'memory', name: 'm', value: { text: 'y' } })).toMatch(/already exists/);
    expect(refused({ action: 'update', kind: 'prompt', name: 'nope', value: { text: 'y' } })).toMatch(/no prompt named/);
    expect(refused({ action: 'create', kind: 'skill', name: 's', value: { ...skill, files: { '__init__.py': '', '../x.py': '' } } })).toMatch(/invalid skill file path/);
    expect(refused({ action: 'create', kind: 'skill', name: 's', value: { ...skill, files: { 'x.py': '' } } })).toMatch(/__init__\.py/);
    expect(refused({ action: 'create', kind: 'skill', name: 's', value: skill })).toBeNull();
    // Within the skill's own limits, but its JSON (every quote and newline escaped) would not fit a logged edit.
    const escaped = { ...skill, files: { '__init__.py': '"\n'.repeat(30_000) } };
    expect(refused({ action: 'create', kind: 'skill', name: 's', value: escaped })).toMatch(/over the 72000-character limit of a logged edit/);
    expect(checkHarnessName('Bad-Name')).toMatch(/invalid/);
  });

  it('reverts an edit to the exact prior state, and refuses when the entry moved on', () => {
    const log = apply([], [
      { action: 'create', kind: 'subagent', name: 'reviewer', value: { instructions: 'review', model: null, maxTurns: 3 } },
      { action: 'create', kind: 'memory', name: 'notes', value: { text: 'v1' } },
    ]);
    const before = canonicalState(log);
    apply(log, [{ action: 'update', kind: 'memory', name: 'notes', value: { text: 'v2' } }]);
    const values = () => new Map(log.map((e) => [e.editId, { before: e.before, after: e.after }]));
    const plan = planHarnessRevert(foldHarness(log), log, log[2].editId, values());
    if (!plan.ok) throw new Error(plan.error);
    for (const s of plan.steps) {
      log.push({ ...log[2], editId: `harness:t/${log.length}`, action: 'revert', before: s.before, after: s.after, revertOf: s.revertOf });
    }
    expect(canonicalState(log)).toEqual(before);
    expect(planHarnessRevert(foldHarness(log), log, log[2].editId, values())).toMatchObject({ ok: false, error: expect.stringMatching(/already been reverted/) });
    apply(log, [{ action: 'update', kind: 'memory', name: 'notes', value: { text: 'v3' } }]);
    expect(planHarnessRevert(foldHarness(log), log, log[1].editId, values())).toMatchObject({ ok: false, error: expect.stringMatching(/changed after/) });
    expect(planHarnessRevert(foldHarness(log), log, 'harness:t/99', values())).toMatchObject({ ok: false, error: expect.stringMatching(/no harness edit/) });
  });

  it('auto-refines root sessions on the configured cadence only', () => {
    const limits = { autoRefineTurns: 3 } as never;
    expect([1, 2, 3, 4, 5, 6].map((t) => shouldAutoRefine({ depth: 0, limits }, t))).toEqual([false, false, true, false, false, true]);
    expect(shouldAutoRefine({ depth: 1, limits }, 3)).toBe(false);
    expect(shouldAutoRefine({ depth: 0, limits: { autoRefineTurns: 0 } as never }, 3)).toBe(false);
    expect(shouldAutoRefine({ depth: 0, limits: {} as never }, 3)).toBe(false);
  });

  it('a restored kernel does not re-run a cell that edited the harness', () => {
    const code = 'harness.memory.create("m", "x")';
    const { records } = chain('r', [
      [1, ev.started('root', 0)],
      [2, ev.request('x = 1')], [3, ev.executed('r/1', 'x = 1', '')],
      [4, ev.request(code)], [5, { type: 'HarnessEditRequested', op: 'edit', editIds: ['harness:r/0'] }], [6, ev.executed('r/3', code, '')],
      [7, ev.request('y = 2')], [8, ev.executed('r/6', 'y = 2', '')],
    ]);
    const plan = planKernelRestore(records, 0);
    expect(plan.replay.map((c) => c.requestId)).toEqual(['r/1', 'r/6']);
    expect(plan.skipped).toEqual([{ requestId: 'r/3', reason: expect.stringMatching(/edited the harness/) }]);
  });

  it("shows the refiner each step of the trajectory under its event id, and the current harness", () => {
    const { records } = chain('r', [
      [1, ev.started('root', 0)],
      [2, ev.request('1/0')],
      [3, { ...ev.executed('r/1', '1/0', ''), status: 'error', errorName: 'ZeroDivisionError', errorValue: 'division by zero' } as never],
    ]);
    const log = apply([], [{ action: 'create', kind: 'memory', name: 'notes', value: { text: 'v1' } }]);
    const [msg] = refinerMessages(records, harnessEntries(foldHarness(log)), 'fix it');
    expect(msg.content).toContain('[r/2] cell error: \nZeroDivisionError: division by zero');
    expect(msg.content).toMatch(/\[r\/0\] task: /);
    expect(msg.content).toContain('- memory notes: {"text":"v1"}');
    expect(msg.content).toContain('<instructions>\nfix it\n</instructions>');
  });

  it('parses a refiner reply wrapped in prose and fences', () => {
    const p = parseRefineReply('Here:\n```json\n{"summary":"s","evidence":["a/1"],"edits":[{"action":"create","kind":"memory","name":"m","value":{"text":"t"},"reason":"r"}]}\n```');
    expect(p).toEqual({ summary: 's', evidence: ['a/1'], edits: [{ action: 'create', kind: 'memory', name: 'm', value: { text: 't' }, reason: 'r' }] });
    expect(() => parseRefineReply('no json here')).toThrow(/no JSON object/);
  });

  it('shows skill metadata but never skill code in the prompt section; session entries shadow global ones', () => {
    const global = foldHarness(apply([], [
      { action: 'create', kind: 'memory', name: 'facts', value: { text: 'global fact' } },
      { action: 'create', kind: 'skill', name: 'adder', value: skill },
    ]));
    const session = foldHarness(apply([], [{ action: 'create', kind: 'memory', name: 'facts', value: { text: 'tree fact' } }]));
    const text = harnessSection(mergeScopes(harnessEntries(global), harnessEntries(session)));
    expect(text).toContain('- facts: tree fact');
    expect(text).not.toContain('global fact');
    expect(text).toContain('- adder: adds API: add(a, b)');
    expect(text).not.toContain('return a + b');
    expect(harnessSection([])).toBe('');
  });
});

function canonicalState(log: HarnessEditRecord[]): string[] {
  return harnessEntries(foldHarness(log)).map((e) => `${e.kind}/${e.name}=${canonical(e.value)}`);
}
