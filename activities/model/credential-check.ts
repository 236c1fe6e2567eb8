import { localModelFile, type LocalModelsConfig } from './local-models';
import { PROVIDERS, needsOf, type Need, type ProviderName, type ProviderPreset } from './providers';
import { parseModelSpec } from './registry';
import { readLogin } from './auth/login-store';

/**
 * What a run's model needs before anything is logged: a key that is set and can be sent, a login
 * that is stored, a local model that is installed. A run that would fail at its first call fails
 * here instead, before SessionStarted, with one line saying what to set. Whether the key is
 * valid only the provider can say; a key of the wrong shape for the provider's own endpoint
 * (documented prefixes) is caught here.
 */

/** Prefixes the providers document for their keys; checked only against the provider's own endpoint. */
const KEY_PREFIX: Partial<Record<ProviderName, { env: string; prefix: string; docs: string }>> = {
  anthropic: { env: 'ANTHROPIC_API_KEY', prefix: 'sk-ant-', docs: 'https://console.anthropic.com/settings/keys' },
  openai: { env: 'OPENAI_API_KEY', prefix: 'sk-', docs: 'https://platform.openai.com/api-keys' },
  'openai-responses': { env: 'OPENAI_API_KEY', prefix: 'sk-', docs: 'https://platform.openai.com/api-keys' },
};

export interface CheckPlace {
  env: Record<string, string | undefined>;
  loginsDir: string;
  local: LocalModelsConfig;
}

/** The one line that says what to set for `spec` to work here; null when nothing is missing. */
export function credentialProblem(spec: string, here: CheckPlace): string | null {
  // A malformed spec or script is the daemon's to refuse (a 400 naming it).
  let parsed: ReturnType<typeof parseModelSpec>;
  try {
    parsed = parseModelSpec(spec);
  } catch {
    return null;
  }
  if (parsed.provider === 'scripted') return null;
  if (parsed.provider === 'local') return localProblem(parsed.model, here.local);
  const preset: ProviderPreset = PROVIDERS[parsed.provider];
  for (const need of needsOf(preset)) {
    const problem = needProblem(need, spec, here);
    if (problem) return problem;
  }
  if (preset.keyEnv) {
    const key = here.env[preset.keyEnv];
    // A header value cannot carry these: the call could never authenticate.
    if (key && /[\s\x00-\x1f\x7f]/.test(key)) return `${preset.keyEnv} holds whitespace or control characters (a pasted newline?); set it to the key alone for model ${spec}`;
  }
  const format = KEY_PREFIX[parsed.provider];
  const key = format && here.env[format.env];
  const ownEndpoint = !here.env[preset.baseUrlEnv];
  if (format && key && ownEndpoint && !key.startsWith(format.prefix)) {
    return `${format.env} does not look like a key for ${parsed.provider} (those start "${format.prefix}"); set it to a key from ${format.docs} for model ${spec}`;
  }
  return null;
}

function needProblem(need: Need, spec: string, here: CheckPlace): string | null {
  if ('env' in need) {
    if (need.env.some((v) => here.env[v])) return null;
    return `${need.env.length === 1 ? need.env[0] : `one of ${need.env.join(', ')}`} is not set; set it for model ${spec}`;
  }
  if ('login' in need) {
    let record;
    try {
      record = readLogin(here.loginsDir, need.login);
    } catch (e) {
      return `the ${need.login} login is unreadable (${(e as Error).message}); run \`recur login ${need.login}\` for model ${spec}`;
    }
    if (!record) return `not logged in to ${need.login}; run \`recur login ${need.login}\` for model ${spec}`;
    if (record.rejected) return `the ${need.login} login was refused (${record.rejected}); run \`recur login ${need.login}\` again for model ${spec}`;
    return null;
  }
  // A file need is a local model's: localProblem checks it by the model's name.
  return null;
}

function localProblem(name: string, local: LocalModelsConfig): string | null {
  try {
    localModelFile(name, local);
    return null;
  } catch (e) {
    return (e as Error).message.replace(/^local: /, '');
  }
}
