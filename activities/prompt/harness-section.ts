import type { HarnessEntry, HarnessKind, MemoryValue, PromptValue, SkillValue, SubagentValue } from '../../workflows/harness/harness-types';

/** Global entries, then the session tree's, which shadow a global entry of the same kind and name. */
export function mergeScopes(global: readonly HarnessEntry[], session: readonly HarnessEntry[]): Array<HarnessEntry & { scope: 'global' | 'session' }> {
  const merged = new Map<string, HarnessEntry & { scope: 'global' | 'session' }>();
  for (const e of global) merged.set(`${e.kind}/${e.name}`, { ...e, scope: 'global' });
  for (const e of session) merged.set(`${e.kind}/${e.name}`, { ...e, scope: 'session' });
  return [...merged.values()];
}

const line = (e: HarnessEntry): string => {
  switch (e.kind) {
    case 'prompt':
      return `- ${(e.value as PromptValue).text}`;
    case 'memory':
      return `- ${e.name}: ${(e.value as MemoryValue).text}`;
    case 'subagent': {
      const v = e.value as SubagentValue;
      return `- ${e.name}${v.model ? ` (model ${v.model})` : ''}: ${v.instructions.slice(0, 200)}`;
    }
    case 'skill': {
      const v = e.value as SkillValue;
      return `- ${e.name}: ${v.description}${v.api ? ` API: ${v.api}` : ''}`;
    }
  }
};

const HEADINGS: Array<[HarnessKind, string]> = [
  ['prompt', 'Prompt notes'],
  ['subagent', 'Sub-agent specs (use with rlm(task, spec="<name>"))'],
  ['skill', 'Skills (Python packages: `import <name>`; harness.skills.read(name) shows the code)'],
  ['memory', 'Memory (your notebook: harness.memory.create/update/read)'],
];

/**
 * The harness as the model sees it, right after the base system prompt (which it never
 * replaces): prompt notes, spec and skill metadata (never skill code), memory. Empty when H is.
 */
export function harnessSection(entries: readonly HarnessEntry[]): string {
  const parts: string[] = [];
  for (const [kind, heading] of HEADINGS) {
    const of = entries.filter((e) => e.kind === kind).sort((a, b) => (a.name < b.name ? -1 : 1));
    if (of.length > 0) parts.push(`### ${heading}\n${of.map(line).join('\n')}`);
  }
  return parts.length === 0 ? '' : `\n\n## Continual Harness\n\n${parts.join('\n\n')}`;
}
