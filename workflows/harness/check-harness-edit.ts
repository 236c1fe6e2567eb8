import { FIELD_LIMITS } from '../../schemas/field-limits';
import {
  HARNESS_KINDS, entryKey, type HarnessKind, type HarnessState, type HarnessValue, type ProposedEdit,
} from './harness-types';

/** Limits that keep H small enough to show in every prompt and to log inline. */
export const HARNESS_LIMITS = {
  textChars: 8_000,
  skillBytes: 64 * 1024,
  skillFiles: 32,
  entriesPerKind: 100,
  editsPerRequest: 20,
  /** All values of a scope together: bounds what its workflow carries and every prompt shows. */
  scopeChars: 1_000_000,
} as const;

/** Names a refiner or agent might use for the base system prompt, which H does not contain. */
const BASE_PROMPT_NAMES = new Set(['base', 'system', 'system_prompt', 'base_prompt', 'base_system_prompt']);
const BASE_PROMPT_KINDS = new Set(['system', 'system_prompt', 'base_prompt', 'base_system_prompt']);
export const BASE_PROMPT_REFUSAL = 'the base system prompt is immutable: it is not part of the harness and no edit can change it';

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** A skill file path: relative, `/`-separated, each segment a plain name (no `..`, no hidden files). */
const FILE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

export type EditCheck = { ok: true; kind: HarnessKind; before: string | null; after: string | null } | { ok: false; error: string };

/**
 * Decides whether `edit` may apply to `state`, and what it changes: the canonical JSON of the
 * entry before and after. Pure; the caller logs a refusal as well as an application.
 */
export function checkHarnessEdit(state: HarnessState, edit: ProposedEdit): EditCheck {
  const kind = String(edit.kind);
  const name = String(edit.name);
  if (BASE_PROMPT_KINDS.has(kind) || (kind === 'prompt' && BASE_PROMPT_NAMES.has(name))) return refuse(BASE_PROMPT_REFUSAL);
  if (!(HARNESS_KINDS as readonly string[]).includes(kind)) return refuse(`unknown harness kind "${kind}": use one of ${HARNESS_KINDS.join(', ')}`);
  const bad = checkHarnessName(name);
  if (bad) return refuse(bad);
  const k = kind as HarnessKind;
  const current = state.get(entryKey(k, name));
  const before = current ? canonical(current.value) : null;
  switch (edit.action) {
    case 'delete':
      return current ? { ok: true, kind: k, before, after: null } : refuse(`no ${k} named "${name}" to delete`);
    case 'create':
    case 'update': {
      if (edit.action === 'create' && current) return refuse(`a ${k} named "${name}" already exists; update it instead`);
      if (edit.action === 'update' && !current) return refuse(`no ${k} named "${name}" to update; create it first`);
      if (edit.action === 'create' && countKind(state, k) >= HARNESS_LIMITS.entriesPerKind) {
        return refuse(`the harness already holds ${HARNESS_LIMITS.entriesPerKind} ${k} entries`);
      }
      const value = normalise(k, edit.value);
      if (typeof value === 'string') return refuse(value);
      const after = canonical(value);
      // Logged whole in HarnessEdited (a revert reads it back), so it must fit the event's field limit.
      const maxLogged = FIELD_LIMITS.HarnessEdited.after;
      if (after.length > maxLogged) return refuse(`the entry's JSON is ${after.length} characters, over the ${maxLogged}-character limit of a logged edit`);
      const size = scopeChars(state) - (before?.length ?? 0) + after.length;
      if (size > HARNESS_LIMITS.scopeChars) return refuse(`the scope would hold ${size} characters, over its ${HARNESS_LIMITS.scopeChars} limit; delete entries first`);
      return { ok: true, kind: k, before, after };
    }
    default:
      return refuse(`unknown action "${String(edit.action)}": use create, update or delete`);
  }
}

/** Null when `name` is a valid entry name (also a Python module name, so a skill can be imported by it). */
export function checkHarnessName(name: string): string | null {
  return NAME.test(name) ? null : `invalid harness name "${name}": use 1-64 of a-z, 0-9 and _, starting with a letter`;
}

/** Values are stored as JSON with a fixed key order, so `before`/`after` compare byte for byte. */
export function canonical(value: HarnessValue): string {
  return JSON.stringify(value);
}

function normalise(kind: HarnessKind, raw: unknown): HarnessValue | string {
  const v = (typeof raw === 'object' && raw !== null ? raw : typeof raw === 'string' ? { text: raw } : {}) as Record<string, unknown>;
  switch (kind) {
    case 'prompt':
    case 'memory':
      return text(v.text, `${kind}.text`, true) ?? { text: v.text as string };
    case 'subagent': {
      const bad = text(v.instructions, 'subagent.instructions', true)
        ?? (v.model != null && typeof v.model !== 'string' ? 'subagent.model must be a string or null' : null)
        ?? (v.maxTurns != null && !(Number.isInteger(v.maxTurns) && (v.maxTurns as number) > 0) ? 'subagent.maxTurns must be a positive integer or null' : null);
      return bad ?? { instructions: v.instructions as string, model: (v.model as string | null) ?? null, maxTurns: (v.maxTurns as number | null) ?? null };
    }
    case 'skill':
      return normaliseSkill(v);
  }
}

function normaliseSkill(v: Record<string, unknown>): HarnessValue | string {
  const bad = text(v.description, 'skill.description', true) ?? text(v.api ?? '', 'skill.api', false);
  if (bad) return bad;
  const files = v.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) return 'skill.files must map relative paths to file text';
  const paths = Object.keys(files).sort();
  if (!paths.includes('__init__.py')) return 'skill.files must contain __init__.py (the package the kernel imports)';
  if (paths.length > HARNESS_LIMITS.skillFiles) return `a skill may have at most ${HARNESS_LIMITS.skillFiles} files`;
  let bytes = 0;
  const out: Record<string, string> = {};
  for (const p of paths) {
    if (!p.split('/').every((seg) => FILE_SEGMENT.test(seg) && seg !== '..')) return `invalid skill file path "${p}": relative, no "..", no leading dots`;
    if (p === 'SKILL.md') return 'SKILL.md is written from the skill\'s name, description and api; do not pass it as a file';
    const body = (files as Record<string, unknown>)[p];
    if (typeof body !== 'string') return `skill file "${p}" must be text`;
    bytes += body.length;
    out[p] = body;
  }
  if (bytes > HARNESS_LIMITS.skillBytes) return `skill files total ${bytes} characters, over the ${HARNESS_LIMITS.skillBytes} limit`;
  return { description: v.description as string, api: (v.api as string | undefined) ?? '', files: out };
}

function text(v: unknown, field: string, required: boolean): string | null {
  if (typeof v !== 'string') return `${field} must be a string`;
  if (required && !v.trim()) return `${field} must not be empty`;
  if (v.length > HARNESS_LIMITS.textChars) return `${field} has ${v.length} characters, over the ${HARNESS_LIMITS.textChars} limit`;
  return null;
}

function scopeChars(state: HarnessState): number {
  let n = 0;
  for (const e of state.values()) n += canonical(e.value).length;
  return n;
}

function countKind(state: HarnessState, kind: HarnessKind): number {
  let n = 0;
  for (const e of state.values()) if (e.kind === kind) n++;
  return n;
}

const refuse = (error: string): EditCheck => ({ ok: false, error });
