import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generatorModels } from '../../services/cli/commands/run';
import { researchStart } from '../../services/research/research-spec';
import { researchRoles, shippedRoles } from '../../services/research/roles';
import { readTask, type ResearchTask } from '../../services/research/tasks';
import { checkHarnessEdit } from '../../workflows/harness/check-harness-edit';

const task = readTask('nqm-speedrun')!;

/** A task of its own in a temp dir: its manifest's roles, and the files they name. */
function taskWith(roles: ResearchTask['manifest']['roles'], files: Record<string, string> = {}): ResearchTask {
  const dir = mkdtempSync(join(tmpdir(), 'recur-roles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return { dir, manifest: { ...task.manifest, name: 'toy', roles } };
}

describe('the roles a research task ships, as sub-agent specs', () => {
  it('nqm-speedrun ships a generator, an executor and a judge, each a spec its tree\'s harness accepts', () => {
    const roles = researchRoles(task, []);
    expect(roles.map((r) => [r.name, r.value.model, r.value.maxTurns])).toEqual([['generator', null, 30], ['executor', null, 30], ['judge', null, 10]]);
    for (const r of roles) {
      expect(checkHarnessEdit(new Map(), { action: 'create', kind: 'subagent', name: r.name, value: r.value })).toMatchObject({ ok: true });
    }
    expect(roles[0].value.instructions).toContain('research.trial');
    expect(roles[1].value.instructions).toContain('research.submit');
    expect(roles[2].value.instructions).toContain('ledger.annotate');
    expect(shippedRoles('nqm-speedrun', [])).toEqual(roles);
  });

  it('makes one generator spec per model, numbered in order, and keeps the other roles on the spawner\'s model', () => {
    const roles = researchRoles(task, ['openai/gpt-4o', 'anthropic/claude-sonnet-4-5']);
    expect(roles.map((r) => [r.name, r.value.model])).toEqual([
      ['generator_1', 'openai/gpt-4o'], ['generator_2', 'anthropic/claude-sonnet-4-5'], ['executor', null], ['judge', null],
    ]);
    expect(roles[0].value.instructions).toBe(researchRoles(task, [])[0].value.instructions);
    expect(researchStart(task, 'weights-only', undefined, ['openai/gpt-4o']).spec.generators).toEqual(['openai/gpt-4o']);
  });

  it('refuses generators beyond eight, generators for a task with no generator role, and a role file outside the task', () => {
    expect(() => researchRoles(task, Array(9).fill('openai/gpt-4o'))).toThrow('at most 8 generators, got 9');
    const noGenerator = taskWith({ judge: { instructions: 'judge.md' } }, { 'judge.md': 'check the rules' });
    expect(researchRoles(noGenerator, []).map((r) => r.name)).toEqual(['judge']);
    expect(() => researchRoles(noGenerator, ['openai/gpt-4o'])).toThrow('toy ships no generator role to run on the generators\' models');
    expect(() => researchStart({ ...noGenerator, dir: task.dir }, 'weights-only', undefined, ['openai/gpt-4o'])).toThrow('ships no generator role');
    expect(() => researchRoles(taskWith({ judge: { instructions: '../../etc/passwd' } }), [])).toThrow('toy role judge: ../../etc/passwd is not a file of the task');
    expect(researchRoles(taskWith(undefined), [])).toEqual([]);
    expect(() => shippedRoles('nope', [])).toThrow('no research task nope');
  });

  it('reads --generators as a comma list, a scripted file made absolute as --model\'s is', () => {
    expect(generatorModels('openai/gpt-4o, scripted:g.json,scripted:/abs/h.json', '/work/here')).toEqual(['openai/gpt-4o', 'scripted:/work/here/g.json', 'scripted:/abs/h.json']);
  });
});
