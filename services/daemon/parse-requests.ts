import { randomBytes } from 'node:crypto';
import { MAX_GENERATORS } from '../research/roles';
import { listTasks, readTask } from '../research/tasks';
import { isAbsolute } from 'node:path';
import { parseModelSpec } from '../../activities/model/registry';
import { allowedScriptPath } from '../../activities/model/scripted';
import { RANGES, inRange } from '../../config';
import type { SessionLimits } from '../../workflows/session-types';
import type { StartSessionRequest } from './api-types';
import { badRequest, outOfRange } from './http-error';
import { INLINE } from '../../schemas/field-limits';
import { parseAutonomous, parseGoal } from './long-run-input';
import { parseNetPolicy } from '../../config';
import { parseWorkspace } from './workspace-input';

/** Root ids are one path segment; child ids append `/<agent name>` (names may hold `_`). */
const ROOT_ID = /^[a-z][a-z0-9-]*$/;
const SEGMENT = /^[a-z][a-z0-9_-]*$/;
const NAME = /^[a-z][a-z0-9-]{0,39}$/;
const MAX_ID_CHARS = 512;
/** Task and message texts go into events inline: their field limit (schemas/field-limits.ts). */
export const MAX_TEXT_CHARS = INLINE.task;
/** What a request may set: the numbers. The sandbox is the host's, never the caller's. */
type RequestLimit = Exclude<keyof SessionLimits, 'sandbox'>;
const LIMIT_KEYS: ReadonlyArray<RequestLimit> = [
  'maxTurns', 'maxTokens', 'maxSeconds', 'maxCostUsd', 'cellTimeoutSeconds', 'maxDepth', 'turnsPerRun', 'snapshotEveryCells',
  'idleUnloadSeconds', 'autoRefineTurns', 'compactAtTokens', 'maxTreeTurns',
];
/** Limits where null means "no limit". */
const NULLABLE: ReadonlyArray<RequestLimit> = ['maxTokens', 'maxSeconds', 'maxCostUsd', 'compactAtTokens', 'maxTreeTurns'];

/** A fresh root session id: `<prefix><base36 ms time><6 hex>`, sortable by start and unguessable enough to never collide. */
export function newRootSessionId(name?: string, now = Date.now()): string {
  const id = `${name ? `${name}-` : 'r'}${now.toString(36)}${randomBytes(3).toString('hex')}`;
  if (!ROOT_ID.test(id)) throw new Error(`generated session id ${id} is malformed`);
  return id;
}

/** A session id from a URL: a root id, optionally followed by child names. */
export function checkSessionId(id: string): string {
  const segments = id.split('/');
  if (id.length > MAX_ID_CHARS || !ROOT_ID.test(segments[0]) || !segments.slice(1).every((s) => SEGMENT.test(s))) {
    throw badRequest(`"${id.slice(0, 80)}" is not a session id (root ids look like r0abc123def456, children root/name)`);
  }
  return id;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

function text(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${key} must be a non-empty string`);
  if (value.length > MAX_TEXT_CHARS) throw badRequest(`${key} is ${value.length} characters; the limit is ${MAX_TEXT_CHARS}`);
  return value;
}

/** The worker refuses a script outside `scriptedDirs` too; refusing it here answers the caller at once. */
export function checkModel(model: string, scriptedDirs: readonly string[]): string {
  let spec;
  try {
    spec = parseModelSpec(model);
  } catch (e) {
    throw badRequest((e as Error).message);
  }
  if (spec.provider === 'scripted' && !isAbsolute(spec.path)) {
    throw badRequest(`model ${model}: the scripted file must be an absolute path (the daemon does not know your working directory)`);
  }
  if (spec.provider === 'scripted') {
    try {
      allowedScriptPath(spec.path, scriptedDirs);
    } catch (e) {
      throw badRequest(`model ${model}: ${(e as Error).message}`);
    }
  }
  return model;
}

function checkLimits(value: unknown): Partial<SessionLimits> {
  if (value === undefined) return {};
  const limits = objectBody(value);
  const out: Partial<SessionLimits> = {};
  for (const [key, v] of Object.entries(limits)) {
    if (!LIMIT_KEYS.includes(key as RequestLimit)) throw badRequest(`unknown limit "${key}"; known: ${LIMIT_KEYS.join(', ')}`);
    const k = key as RequestLimit;
    const nullable = NULLABLE.includes(k);
    if (v === null && nullable) out[k as 'maxTokens'] = null;
    else if (inRange(RANGES[k], v)) out[k] = v;
    else throw outOfRange(`limits.${key}`, RANGES[k], v, nullable);
  }
  return out;
}

/** A research session's generator models: 1 to MAX_GENERATORS, each a model the worker can make (as `model` is checked). */
function parseGenerators(value: unknown, research: string | undefined, scriptedDirs: readonly string[]): string[] {
  if (research === undefined) throw badRequest('generators are a research session\'s: pass them with research');
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_GENERATORS || !value.every((m) => typeof m === 'string' && m.trim() !== '')) {
    throw badRequest(`generators must be 1 to ${MAX_GENERATORS} model specs, got ${JSON.stringify(value).slice(0, 200)}`);
  }
  return value.map((m: string) => checkModel(m.trim(), scriptedDirs));
}

/** Validates `POST /v1/sessions`; throws a 400 HttpError naming the first problem. */
export function parseStartSession(body: unknown, scriptedDirs: readonly string[], home: string): Required<Pick<StartSessionRequest, 'task' | 'model' | 'limits' | 'retain' | 'ci'>> & Pick<StartSessionRequest, 'name' | 'goal' | 'autonomous' | 'net' | 'cwd' | 'research' | 'knowledge' | 'generators' | 'backup'> {
  const b = objectBody(body);
  const unknown = Object.keys(b).filter((k) => !['task', 'model', 'name', 'limits', 'goal', 'autonomous', 'net', 'cwd', 'retain', 'ci', 'research', 'knowledge', 'generators', 'backup'].includes(k));
  if (unknown.length) throw badRequest(`unknown field(s): ${unknown.join(', ')}`);
  const task = text(b, 'task');
  const model = checkModel(text(b, 'model'), scriptedDirs);
  let name: string | undefined;
  if (b.name !== undefined) {
    if (typeof b.name !== 'string' || !NAME.test(b.name)) throw badRequest('name must be 1-40 of a-z, 0-9 and -, starting with a letter');
    name = b.name;
  }
  let net: string | undefined;
  if (b.net !== undefined) {
    const policy = typeof b.net === 'string' ? parseNetPolicy(b.net) : { error: 'net must be a string' };
    if ('error' in policy) throw badRequest(`net: ${policy.error}`);
    net = (b.net as string).trim().toLowerCase();
  }
  const cwd = b.cwd === undefined ? undefined : parseWorkspace(b.cwd, home);
  if (b.retain !== undefined && typeof b.retain !== 'boolean') throw badRequest('retain must be true or false');
  const retain = b.retain !== false;
  if (b.ci !== undefined && typeof b.ci !== 'boolean') throw badRequest('ci must be true or false');
  if (b.research !== undefined && (typeof b.research !== 'string' || !readTask(b.research))) {
    throw badRequest(`research must name a shipped task (${listTasks().join(', ')}), got ${JSON.stringify(b.research)}`);
  }
  const research = b.research as string | undefined;
  if (b.knowledge !== undefined && (typeof b.knowledge !== 'string' || research === undefined)) throw badRequest('knowledge is a research session\'s tier: a string, with research');
  const knowledge = b.knowledge as string | undefined;
  const generators = b.generators === undefined ? undefined : parseGenerators(b.generators, research, scriptedDirs);
  const backup = b.backup === undefined ? undefined : parseBackup(b.backup, scriptedDirs);
  return { task, model, name, net, cwd, retain, ci: b.ci === true, research, knowledge, generators, backup, limits: checkLimits(b.limits), goal: parseGoal(b.goal), autonomous: parseAutonomous(b.autonomous) };
}

/** A backup model: a spec the worker can make, and the throttled minutes after which it takes over (config/ranges.ts). */
function parseBackup(value: unknown, scriptedDirs: readonly string[]): { model: string; afterMinutes: number } {
  const b = objectBody(value);
  const range = RANGES.backupAfterMinutes;
  if (typeof b.afterMinutes !== 'number' || !inRange(range, b.afterMinutes)) throw badRequest(`backup.afterMinutes must be an integer from ${range.min} to ${range.max}`);
  return { model: checkModel(text(b, 'model'), scriptedDirs), afterMinutes: b.afterMinutes };
}

/** Validates `POST /v1/sessions/:id/model`: a spec the worker can make a model of (checkModel's reasons as a 400). */
export function parseSwitchModel(body: unknown, scriptedDirs: readonly string[]): { model: string } {
  return { model: checkModel(text(objectBody(body), 'model'), scriptedDirs) };
}

/** Validates `POST /v1/sessions/:id/messages`. */
export function parseSendMessage(body: unknown): { text: string } {
  return { text: text(objectBody(body), 'text') };
}
