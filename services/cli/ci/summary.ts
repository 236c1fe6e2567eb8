import type { StoredEvent } from '../../../schemas';
import { lastGateRound, type CiVerdict } from './exit-codes';
import { cell, code, codeCell, fenced } from './markdown';
import { outsideChanges } from './outside-changes';
import { costSection, diffSection } from './summary-cost-diff';
import { sessionsOf } from './tree-outcome';

export interface SummaryInput {
  treeId: string;
  /** The tree's events, as the log holds them. */
  events: readonly StoredEvent[];
  verdict: CiVerdict;
  /** The root's net change to its workspace (its end scan's netDiff, read from the blob store); null when it logged none. */
  netDiff: string | null;
}

/** One `##` section: its title and body, or null when it has nothing to say for this tree. */
export type SummarySection = (input: SummaryInput) => { title: string; body: string[] } | null;

/** First, when there are any: what a reviewer must look at before trusting the run's result. */
const outsideSection: SummarySection = ({ treeId, events }) => {
  const found = outsideChanges(events);
  if (found.length === 0) return null;
  const rows = found.map((c) => `| ${cell(c.sessionId)} | ${codeCell(c.path)} | ${c.changes.join(', ')} | ${c.rule === null ? 'git metadata' : `rule ${codeCell(c.rule)}`} |`);
  return {
    title: 'Changes that run outside Recur',
    body: [
      `${found.length} file${found.length === 1 ? '' : 's'} that CI, an editor, a package manager, make or git runs or reads later, outside Recur's sandbox (docs/sandbox.md, "Sensitive paths"): review ${found.length === 1 ? 'it' : 'them'} before merging. \`recur diff ${treeId}\` shows the workspace files' change.`,
      '',
      '| session | path | change | why |',
      '|---|---|---|---|',
      ...rows,
    ],
  };
};

const answerSection: SummarySection = ({ treeId, events }) => {
  const root = sessionsOf(events).find((s) => s.sessionId === treeId);
  if (!root || root.status === 'running') return { title: 'Answer', body: ['The root logged no end event.'] };
  if (root.status === 'failed') return { title: 'Failure', body: [`**${root.kind}**: ${cell(root.reason)}`, ...(root.error ? fenced(root.error) : [])] };
  const note = root.answerBlob ? [`(truncated; the full answer is blob \`${root.answerBlob}\`)`] : [];
  return { title: 'Answer', body: [...fenced(root.answer), ...note] };
};

const gatesSection: SummarySection = ({ events }) => {
  const runs = sessionsOf(events).flatMap((s) => s.gates.map((g) => ({ ...g, sessionId: s.sessionId })));
  if (runs.length === 0) return null;
  const rows = runs.map((g) => `| ${cell(g.sessionId)} | ${g.attempt} | ${codeCell(g.command)} | ${g.passed ? 'passed' : 'FAILED'} | ${g.exitCode ?? 'killed'} | ${(g.durationMs / 1000).toFixed(1)}s |`);
  const last = [...new Set(runs.map((g) => g.sessionId))].flatMap((id) => lastGateRound(events, id)).filter((g) => !g.passed);
  const outputs = last.flatMap((g) => [``, `Output of ${code(g.command)} (last run):`, ...fenced(g.output)]);
  return { title: 'Gates', body: ['| session | round | command | result | exit | time |', '|---|---:|---|---|---:|---:|', ...rows, ...outputs] };
};

const costTreeSection: SummarySection = ({ treeId, events }) => ({ title: 'Cost', body: costSection(treeId, events) });
const diffStatSection: SummarySection = ({ treeId, netDiff }) => ({ title: 'Changes', body: diffSection(treeId, netDiff) });

const replaySection: SummarySection = ({ treeId, events }) => {
  const keys = [...new Set(events.map((e) => e.keyId).filter((k): k is string => k !== null))];
  return {
    title: 'Replay and verify',
    body: [
      'With the stack that ran it:',
      ...fenced([`recur replay ${treeId}`, `recur audit verify ${treeId}`, `recur export ${treeId} --out ${treeId}.tar.gz`].join('\n'), 'sh'),
      'Anywhere, with no stack, from the bundle and a public key you trust:',
      ...fenced([`recur audit verify --bundle ${treeId}.tar.gz --pubkey <keyId>.pem`, `recur replay --bundle ${treeId}.tar.gz`].join('\n'), 'sh'),
      keys.length > 0 ? `Signed by key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `\`${k}\``).join(', ')}.` : 'No event is signed.',
    ],
  };
};

/** The sections in the order a reader wants them. */
export const SUMMARY_SECTIONS: readonly SummarySection[] = [outsideSection, answerSection, gatesSection, costTreeSection, diffStatSection, replaySection];

/** The Markdown summary of a finished tree: its verdict, then each section that has something to say. */
export function renderSummary(input: SummaryInput, sections: readonly SummarySection[] = SUMMARY_SECTIONS): string {
  const sessions = new Set(input.events.map((e) => e.sessionId)).size;
  const lines = [
    `# Recur run \`${input.treeId}\``,
    '',
    `**exit ${input.verdict.code}**: ${cell(input.verdict.reason)} (${sessions} session${sessions === 1 ? '' : 's'}, ${input.events.length} events)`,
  ];
  for (const section of sections) {
    const s = section(input);
    if (s) lines.push('', `## ${s.title}`, '', ...s.body);
  }
  return `${lines.join('\n')}\n`;
}
