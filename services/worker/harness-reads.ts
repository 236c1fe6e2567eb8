import { harnessSection, mergeScopes } from '../../activities/prompt/harness-section';
import type { SubagentValue } from '../../workflows/harness/harness-types';
import type { ResolveSpec } from './bridge-ops';
import type { HarnessClient } from '../../activities/harness/harness-client';

/** The prompt text of what a session sees of H: its tree's scope over the global one. */
export function harnessPromptSection(harness: HarnessClient): (sessionId: string) => Promise<string> {
  return async (sessionId) => {
    const { global, session } = await harness.merged(sessionId);
    return harnessSection(mergeScopes(global.entries, session.entries));
  };
}

export function resolveSpecFrom(harness: HarnessClient): ResolveSpec {
  return async (sessionId, name) => {
    const { global, session } = await harness.merged(sessionId);
    const spec = mergeScopes(global.entries, session.entries).find((e) => e.kind === 'subagent' && e.name === name);
    return spec ? (spec.value as SubagentValue) : null;
  };
}
