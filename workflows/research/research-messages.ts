import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BlobRef, ExperimentKind, ExperimentStatus } from '../../schemas/generated/events';
import type { JobExecutor } from '../jobs/job-messages';

/*
 * The research ledger (docs/research-loop.md): a kernel of the tree asks the root by update; rows
 * are written by the root when the executor reports an experiment's end, never by an agent.
 */

/** The record a candidate must beat: a human record from the task's feed, or an accepted job. */
export interface CurrentRecord {
  /** A feed record's id, or the job id that set it. */
  id: string;
  steps: number;
  mean: number;
  n: number;
}

/** What a research session was started on (recur run --research): its task and the record in force then. */
export interface ResearchSpec {
  task: string;
  /** The knowledge tier its kernels and jobs are confined to (weights-only, archive, full). */
  knowledge: string;
  /** The task's problem experiments run on. */
  problem: string;
  record: CurrentRecord;
  /** The models of the generator specs put into the tree's harness at the start, one spec each; none: one generator spec on the parent's model. */
  generators?: string[];
  /** The human records the task's feed releases after the start, in release order; absent in sessions started before there were any. */
  releases?: FeedRelease[];
}

/** A human record the feed releases during the session (logged as RecordReleased when it does). */
export interface FeedRelease extends CurrentRecord {
  /** Seconds after the session's start. */
  afterSeconds: number;
  /** Its CONFIG's knobs, as JSON. */
  config: string;
  note: string;
}

/** One row of the ledger as the kernel sees it (ledger.query); its trials are (seeds[i], values[i]). */
export interface Experiment {
  id: string;
  kind: ExperimentKind;
  idea: string;
  parent: string | null;
  /** The task's problem its seeds run on. */
  problem: string;
  /** The workspace file the agent named, and its content when it asked: what was judged. */
  file: string;
  source: BlobRef;
  /** Seeds asked for: the task's first `trials`. */
  trials: number;
  status: 'queued' | ExperimentStatus;
  steps: number | null;
  seeds: number[];
  values: (number | null)[];
  mean: number | null;
  promising: boolean;
  configHash: string | null;
  reason: string;
  /** The record a candidate was judged against (its id); null for a trial. */
  against: string | null;
  notes: string[];
  /** The session of the tree that asked: the root or a sub-agent (a row carried from before sub-agents could ask has none). */
  by?: string;
}

/** What a kernel asks. */
export type ResearchAsk =
  | { action: 'trial'; trials: number; idea: string; parent: string | null; file: string; source: BlobRef; executor?: JobExecutor }
  | { action: 'submit'; idea: string; parent: string | null; file: string; source: BlobRef; executor?: JobExecutor }
  | { action: 'query'; last: number }
  | { action: 'annotate'; id: string; note: string };
/**
 * As the root hears it: every kernel of the tree asks the root, whose ledger it is, and the
 * bridge names which session asked (`by`; the kernel cannot). Absent in a request from before
 * sub-agents could ask, which only the root's own kernel could make.
 */
export type ResearchRequest = ResearchAsk & { by?: string };
export type ResearchReply = { ok: true; rows: Experiment[]; record: CurrentRecord } | { ok: false; reason: string };
export const researchUpdate = defineUpdate<ResearchReply, [ResearchRequest]>('research');

/**
 * From a research tree's root to the sub-agent that asked for an experiment: the job it was queued
 * as (the asker then waits on it as on a job of its own), and at its end the host's verdict as a
 * message, which wakes the asker as a job's end wakes its session.
 */
export type ExperimentNotice = { kind: 'queued'; jobId: string } | { kind: 'ended'; jobId: string; message: { messageId: string; from: string; text: string } };
export const experimentNoticeSignal = defineSignal<[ExperimentNotice]>('experimentNotice');
