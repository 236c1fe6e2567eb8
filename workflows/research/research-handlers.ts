/*
 * research.trial / research.submit / ledger.query / ledger.annotate from any kernel of the tree, on
 * the root, whose ledger it is. An experiment is a job of the root whose command is the task's
 * frozen judge, run by the host; its row is written when the job ends (job-handlers.ts), never
 * from anything an agent sends. Deterministic.
 */
import { setHandler } from '@temporalio/workflow';
import type { JudgeRun } from '../../activities/jobs/job-launch';
import { HARD } from '../../schemas/field-limits';
import { isInSessionTree } from '../../schemas/session-ids';
import { guardUpdate } from '../guard-handler';
import { checkSubmit, jobsClosed, queueJob } from '../jobs/job-handlers';
import { JOB_ID } from '../jobs/job-messages';
import type { SessionState } from '../session-state';
import { KEPT_ENDED, type ResearchBook } from './research-book';
import { experimentNoticeSignal, researchUpdate, type Experiment, type ExperimentNotice, type ResearchReply, type ResearchRequest } from './research-messages';
import { tellAsker } from './tell-asker';

const NO_RESEARCH = 'this session has no research task: start it with recur run --research TASK (docs/research-loop.md)';
/** Far above a judge run (a scale-up stage bisects on the large problem: seconds); what it stops is a judge stuck. */
const JUDGE_TIMEOUT_SECONDS = 900;

export function installResearchHandlers(s: SessionState): void {
  setHandler(researchUpdate, guardUpdate(s, (req: ResearchRequest) => onRequest(s, req)));
  setHandler(experimentNoticeSignal, (n) => onNotice(s, n));
}

const copy = (r: Experiment): Experiment => ({ ...r, seeds: [...r.seeds], values: [...r.values], notes: [...r.notes] });

/** Why an experiment request is refused, or null. */
export function checkExperiment(book: ResearchBook, req: Extract<ResearchRequest, { action: 'trial' | 'submit' }>, submitted: number): string | null {
  if (req.idea.length > HARD.idea) return `idea is over ${HARD.idea} characters`;
  if (req.parent !== null && (!JOB_ID.test(req.parent) || Number(req.parent.slice(4)) > submitted)) return `parent must be an experiment of this ledger (a job id), got ${JSON.stringify(req.parent)}`;
  const n = book.record.n;
  if (req.action === 'trial' && (!Number.isInteger(req.trials) || req.trials < 1 || req.trials > n)) return `n must be an integer from 1 to ${n} (the task's seeds), got ${req.trials}`;
  return null;
}

async function onRequest(s: SessionState, asked: ResearchRequest): Promise<ResearchReply> {
  const book = s.research;
  if (!book) return { ok: false, reason: NO_RESEARCH };
  // A history from before sub-agents could ask replays its requests as the root's own.
  const req = { ...asked, by: asked.by ?? s.id };
  if (!isInSessionTree(req.by, s.id)) return { ok: false, reason: `${req.by} is no session of ${s.id}'s tree` };
  const reply = (rows: Experiment[]): ResearchReply => ({ ok: true, rows: rows.map(copy), record: { ...book.record } });
  if (req.action === 'query') return reply(book.last(Math.max(1, Math.min(KEPT_ENDED, Math.floor(req.last) || 1))));
  if (req.action === 'annotate') {
    const row = book.get(req.id);
    if (!row) return { ok: false, reason: `no experiment ${JSON.stringify(req.id)} among this ledger's last ${KEPT_ENDED} rows` };
    if (!req.note.trim() || req.note.length > HARD.idea) return { ok: false, reason: `a note must be 1 to ${HARD.idea} characters` };
    await s.emit(() => [{ type: 'ExperimentAnnotated', jobId: row.id, note: req.note, by: req.by }], () => row.notes.push(req.note));
    return reply([row]);
  }
  const refused = jobsClosed(s) ?? checkExperiment(book, req, Number(s.jobs.nextId().slice(4)) - 1);
  if (refused) return { ok: false, reason: refused };
  const kind = req.action === 'trial' ? 'trial' : 'record';
  const record = book.record;
  const trials = req.action === 'trial' ? req.trials : record.n;
  const judge: JudgeRun = {
    task: book.task, problem: book.problem, trials, source: req.source,
    against: kind === 'record' ? { steps: record.steps, mean: record.mean, n: record.n } : null, scaleUp: kind === 'record',
  };
  const command = kind === 'record'
    ? `research submit: the ${book.task} judge on ${req.file} (blob ${req.source.sha256.slice(0, 12)}), ${trials} seeds, against record ${record.id} (${record.steps} steps), with its scale-up stage`
    : `research trial: the ${book.task} judge on ${req.file} (blob ${req.source.sha256.slice(0, 12)}), ${trials} seed${trials === 1 ? '' : 's'}`;
  const spec = { command, cpus: 1, seeds: [], timeoutSeconds: JUDGE_TIMEOUT_SECONDS, judge, executor: req.executor };
  const busy = checkSubmit({ action: 'submit', ...spec }, s.jobs.active().length);
  if (busy) return { ok: false, reason: busy };
  const job = await queueJob(s, spec, (j) => book.add({
    id: j.id, kind, idea: req.idea, parent: req.parent, problem: book.problem, file: req.file, source: req.source, trials, status: 'queued', steps: null, seeds: [], values: [],
    mean: null, promising: false, configHash: null, reason: '', against: kind === 'record' ? record.id : null, notes: [], by: req.by,
  }));
  await tellAsker(s, req.by, { kind: 'queued', jobId: job.id });
  return reply([book.get(job.id)!]);
}

/** A sub-agent's side: it waits on an experiment it asked for as on a job of its own, and reads its end as the root's message. */
function onNotice(s: SessionState, n: ExperimentNotice): void {
  if (n.kind === 'queued') {
    s.awaited.add(n.jobId);
    return;
  }
  s.awaited.delete(n.jobId);
  s.accept(n.message);
}
