/** Plain data of the Continual Harness H = (prompts, sub-agent specs, skills, memory). No I/O, no SDK imports. */

export const HARNESS_KINDS = ['prompt', 'subagent', 'skill', 'memory'] as const;
export type HarnessKind = (typeof HARNESS_KINDS)[number];

/** `session`: the session tree the caller belongs to (the default); `global`: every session. */
export type HarnessScope = 'session' | 'global';

export interface PromptValue { text: string }
export interface MemoryValue { text: string }
/** A named sub-agent template used by `rlm(task, spec=name)`. */
export interface SubagentValue { instructions: string; model: string | null; maxTurns: number | null }
/** A Python package: `files` maps relative paths to text; SKILL.md is written from name, description and api. */
export interface SkillValue { description: string; api: string; files: Record<string, string> }
export type HarnessValue = PromptValue | MemoryValue | SubagentValue | SkillValue;

export interface HarnessEntry {
  kind: HarnessKind;
  name: string;
  value: HarnessValue;
  /** editId of the edit that last set it. */
  editId: string;
}

export type HarnessAction = 'create' | 'update' | 'delete' | 'revert';

/** What someone asks for; `kind` is a plain string so that a bad one can be refused and logged. */
export interface ProposedEdit {
  action: Exclude<HarnessAction, 'revert'>;
  kind: string;
  name: string;
  /** The new value for create/update; ignored for delete. */
  value?: unknown;
  /** Why this edit, in the proposer's words. */
  reason?: string;
  /** A refusal the host found before the scope's own checks (a skill named like an installed module); logged as refused. */
  refusal?: string;
}

export interface HarnessTrigger {
  /** Ids of the events that are the evidence for the edit. */
  eventIds: string[];
  reason: string;
}

export type EditResult = 'applied' | 'refused' | 'proposed';

/** One logged edit: the fields of its HarnessEdited event. */
export interface HarnessEditRecord {
  editId: string;
  action: HarnessAction;
  kind: string;
  name: string;
  /** JSON of the entry's value before and after; null where the entry did not (or would not) exist. */
  before: string | null;
  after: string | null;
  trigger: HarnessTrigger;
  source: string;
  requestedBy: string | null;
  result: EditResult;
  error: string | null;
  revertOf: string | null;
  refineId: string | null;
}

/**
 * An edit as the scope's workflow keeps it: everything but the values, which stay in the log
 * (read back when a revert or an approval needs them), so workflow history stays small.
 */
export type HarnessEditSummary = Omit<HarnessEditRecord, 'before' | 'after'>;

/** The folded state: current entries keyed `kind/name`. */
export type HarnessState = ReadonlyMap<string, HarnessEntry>;

export const entryKey = (kind: string, name: string): string => `${kind}/${name}`;
