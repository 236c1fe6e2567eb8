import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ProviderError, ScriptExhaustedError } from '../../errors';
import { estimateUsage } from './estimate-usage';
import { extractFencedPython } from './extract-code';
import type { ModelProvider, ModelRequest, ModelResponse } from './types';

/**
 * `{ "agents": { "root": ["reply 1", …], "<child name>": […] } }`: each agent's replies in call order.
 * `expectSystem` (optional, same keys): for each call in order, texts its system prompt must
 * contain; a call whose prompt lacks one fails, naming it. It lets a test see what the model saw.
 */
export interface Script {
  agents: Record<string, string[]>;
  expectSystem?: Record<string, string[][]>;
}

/**
 * A deterministic model for tests and demos. The answer depends only on (agent, callIndex), never
 * on a counter here, so a retried or replayed call gets the same reply.
 */
export function createScriptedModel(script: Script, source = 'in-memory script'): ModelProvider {
  return {
    name: 'scripted',
    complete: async (request) => {
      const res = reply(script, source, request);
      if (request.onTextDelta) await streamInChunks(res.text, request.onTextDelta);
      return res;
    },
  };
}

/** Pieces a scripted reply streams in, so a live view shows it arriving as a real model's would. */
const SCRIPTED_CHUNKS = 4;

/** The reply in SCRIPTED_CHUNKS pieces (whole code points), one event-loop turn apart. */
async function streamInChunks(text: string, onText: (piece: string) => void): Promise<void> {
  const chars = Array.from(text);
  const size = Math.max(1, Math.ceil(chars.length / SCRIPTED_CHUNKS));
  for (let i = 0; i < chars.length; i += size) {
    onText(chars.slice(i, i + size).join(''));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * The real path of a script file that lies under one of `dirs`, symlinks resolved. A path that
 * is not even nominally under one is refused before the file system is touched: an agent naming
 * `scripted:/etc/passwd` learns nothing about that file, and the worker never reads it.
 */
export function allowedScriptPath(path: string, dirs: readonly string[]): string {
  const file = resolve(path);
  const refused = () => scriptError(file, `not under a directory scripted models may read from (${dirs.join(', ') || 'none'}); see RECUR_SCRIPTED_DIRS`);
  if (!dirs.some((d) => isInside(file, resolve(d)))) throw refused();
  let real: string;
  try {
    real = realpathSync(file);
  } catch (err) {
    throw scriptError(file, `cannot read: ${(err as Error).message}`, err);
  }
  const realDirs = dirs.flatMap((d) => {
    try {
      return [realpathSync(d)];
    } catch {
      return [];
    }
  });
  if (!realDirs.some((d) => isInside(real, d))) throw refused();
  return real;
}

function isInside(file: string, dir: string): boolean {
  const rel = relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** Reads and checks a script file under one of `dirs`; a relative path is taken from the current directory. */
export function loadScript(path: string, dirs: readonly string[]): Script {
  const file = allowedScriptPath(path, dirs);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw scriptError(file, `cannot read: ${(err as Error).message}`, err);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw scriptError(file, `not valid JSON: ${(err as Error).message}`, err);
  }
  return validateScript(json, file);
}

export function validateScript(json: unknown, source: string): Script {
  const agents = (json as { agents?: unknown } | null)?.agents;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) {
    throw scriptError(source, 'expected {"agents": {"<agent name>": ["reply", …]}}');
  }
  for (const [name, replies] of Object.entries(agents)) {
    if (!Array.isArray(replies) || !replies.every((r) => typeof r === 'string')) {
      throw scriptError(source, `agents.${name} must be an array of strings`);
    }
  }
  const expectSystem = (json as { expectSystem?: unknown }).expectSystem;
  const isTexts = (v: unknown) => Array.isArray(v) && v.every((call) => Array.isArray(call) && call.every((t) => typeof t === 'string'));
  if (expectSystem !== undefined && (typeof expectSystem !== 'object' || expectSystem === null || !Object.values(expectSystem).every(isTexts))) {
    throw scriptError(source, 'expectSystem must map agent names to arrays (one per call) of arrays of strings');
  }
  return { agents: agents as Record<string, string[]>, ...(expectSystem !== undefined && { expectSystem: expectSystem as Record<string, string[][]> }) };
}

function reply(script: Script, source: string, request: ModelRequest): ModelResponse {
  const replies = Object.hasOwn(script.agents, request.agent) ? script.agents[request.agent] : undefined;
  if (!replies) {
    const err = new ScriptExhaustedError(request.agent, 0);
    const known = Object.keys(script.agents).join(', ') || 'none';
    err.message = `scripted model: ${source} has no replies for agent "${request.agent}" (agents: ${known})`;
    throw err;
  }
  const text = replies[request.callIndex];
  if (text === undefined) throw new ScriptExhaustedError(request.agent, replies.length);
  const expected = Object.hasOwn(script.expectSystem ?? {}, request.agent) ? script.expectSystem![request.agent][request.callIndex] : undefined;
  const missing = (expected ?? []).find((t) => !request.system.includes(t));
  if (missing !== undefined) {
    throw scriptError(source, `call ${request.callIndex} of agent "${request.agent}": the system prompt does not contain ${JSON.stringify(missing)}`);
  }
  return {
    text,
    code: extractFencedPython(text),
    usage: estimateUsage(request, text),
    usageReported: false,
    costUsd: 0,
    latencyMs: 0,
    attempts: 0,
    model: request.model,
    provider: 'scripted',
    stopReason: 'end',
    rawStopReason: null,
  };
}

function scriptError(source: string, problem: string, cause?: unknown): ProviderError {
  return new ProviderError('scripted', `${source}: ${problem}`, undefined, { retryable: false, cause });
}
