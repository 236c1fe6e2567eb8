import { BlobStoreError, sha256Hex, type BlobStore } from '../../../activities/blob-store';
import { openBlobStore } from '../../../activities/open-blob-store';
import { createKernelClient } from '../../../activities/kernel';
import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError, StackError } from '../../../errors';
import { keyringOf, type Keyring, type StoredEvent, type WorkspaceChanged } from '../../../schemas';
import type { ContextFile } from '../../../schemas/generated/events';
import { kafkaClient } from '../../../config/connections';
import { jupyterConnection, stackPaths } from '../../../config/home-paths';
import { homeKeyring, publicKeyFromPem } from '../../home/log-keys';
import { repoRoot } from '../../home/repo-root';
import { readBundle, type Bundle } from '../../projector/bundle/bundle-format';
import { bundleLog } from '../../projector/bundle/verify-bundle';
import type { LogInOrder } from '../../../log/in-order-collector';
import { readLogInOrder } from '../../projector/read-log-in-order';
import { replayCells, type CellReport } from '../../projector/replay-cells';
import { buildTimeline, type TimelineEntry } from '../../projector/timeline';
import { verifyTree } from '../../../log/verify-tree';
import { createKernelHost } from '../../sandbox';
import type { CommandContext } from '../command-context';
import { firstLine, formatEventLine, formatProblemLine, shortSessionId } from '../format-event';
import { problemSite } from './audit';
import { verifyWorkspaces } from './verify-workspace';

const USAGE = 'usage: recur replay <session-id> [--json] [--verify] | recur replay --bundle FILE [<session-id>] [--json] [--verify]';
/** Width of the `+12.345s` column. */
const TIME_COLUMN = 10;

function source(e: StoredEvent): string {
  const ev = e.event;
  if (ev.type === 'SessionStarted') return `task #${e.seq}`;
  if (ev.type === 'ModelCalled') return `reply #${e.seq}`;
  if (ev.type === 'CellExecuted') return `cell #${e.seq}`;
  return ev.type === 'MessageDelivered' ? `message #${e.seq} from ${shortSessionId(ev.from)}` : `${e.type} #${e.seq}`;
}

/** A workspace file the prompt showed, by hash: `AGENTS.md sha256:1a2b… (812 bytes)`, or how much of it when cut. */
function contextSource(f: ContextFile): string {
  const size = f.shown.size < f.bytes ? `${f.shown.size} of ${f.bytes} bytes shown` : `${f.bytes} bytes`;
  return `${f.path} sha256:${f.sha256.slice(0, 16)} (${size})`;
}

/**
 * The workspace files the prompt showed, then what it added since the session's previous model
 * call (that call's reply onward), and how much came before.
 */
function provenance(from: readonly StoredEvent[], context: readonly ContextFile[]): string {
  const last = from.map((e) => e.type).lastIndexOf('ModelCalled');
  const fresh = [...context.map(contextSource), ...from.slice(Math.max(0, last)).map(source)];
  return `prompt ← ${fresh.join(', ') || 'nothing'}${last > 0 ? ` (+${last} earlier)` : ''}`;
}

const MARK = { added: 'A', modified: 'M', deleted: 'D' } as const;
/** Changed files shown under a WorkspaceChanged line; the rest are in its diff. */
const FILES_SHOWN = 10;

function fileLines(e: WorkspaceChanged): string[] {
  const lines = e.files.slice(0, FILES_SHOWN).map((f) => {
    const how = f.overCap ? `over cap, ${f.size ?? 0} bytes` : f.binary ? `binary ${f.newHash?.slice(0, 12) ?? 'deleted'}` : `+${f.linesAdded} -${f.linesDeleted}`;
    return `${MARK[f.change]} ${f.path}  ${how}`;
  });
  if (e.filesTotal > FILES_SHOWN) lines.push(`… and ${e.filesTotal - FILES_SHOWN} more (the diff blob has every text change)`);
  return lines;
}

function details(entry: TimelineEntry): string[] {
  const e = entry.event.event;
  const lines: string[] = [];
  if (entry.promptFrom) lines.push(provenance(entry.promptFrom, e.type === 'ModelCalled' ? e.contextFiles : []));
  if (e.type === 'ModelCalled' && e.toolCalls.length > 0 && e.response.trim()) lines.push(`response: ${JSON.stringify(firstLine(e.response))}`);
  if (e.type === 'WorkspaceChanged') lines.push(...fileLines(e));
  for (const { field, ref } of entry.blobs) lines.push(`${field}: blob ${ref.sha256.slice(0, 16)} (${ref.size} bytes)`);
  return lines;
}

export function formatTimeline(sessionId: string, entries: readonly TimelineEntry[]): string[] {
  const sessions = new Set(entries.map((x) => x.event.sessionId)).size;
  const t0 = entries.length > 0 ? entries[0].event.ts - entries[0].offsetMs : 0;
  const span = entries.reduce((max, x) => Math.max(max, x.offsetMs), 0);
  const lines = [`replay of ${sessionId}: ${sessions} session${sessions === 1 ? '' : 's'}, ${entries.length} events over ${(span / 1000).toFixed(3)}s from ${new Date(t0).toISOString()}`];
  for (const entry of entries) {
    const indent = '  '.repeat(entry.depth);
    lines.push(`${`+${(entry.offsetMs / 1000).toFixed(3)}s`.padStart(TIME_COLUMN)} ${indent}${formatEventLine(entry.event)}`);
    for (const d of details(entry)) lines.push(`${' '.repeat(TIME_COLUMN)} ${indent}    ${d}`);
  }
  return lines;
}

/** One event per line; a ModelCalled also names the eventIds its prompt was rebuilt from. */
export function timelineJson(entry: TimelineEntry): string {
  return JSON.stringify(entry.promptFrom ? { ...entry.event, promptFrom: entry.promptFrom.map((e) => e.eventId) } : entry.event);
}

const LABEL: Record<CellReport['verdict'], string> = {
  same: 'same', differs: 'DIFFERS', 'host-call': 'host call', skipped: 'skipped', unchecked: 'UNCHECKED',
};

export function formatCellReport(r: CellReport): string {
  const seq = r.eventId.slice(r.eventId.lastIndexOf('/') + 1);
  return `${LABEL[r.verdict].padEnd(9)}  ${shortSessionId(r.sessionId)} #${seq}  ${JSON.stringify(firstLine(r.code, 60))}${r.detail ? `  ${r.detail}` : ''}`;
}

/** Outputs only where they tell something: a matching cell's can be large (a blob's whole content). */
function cellReportJson(r: CellReport): string {
  const { logged, replay: replayed, ...rest } = r;
  return JSON.stringify({ kind: 'cell', ...rest, ...(r.verdict !== 'same' && { logged, replay: replayed }) });
}

type BlobReader = Pick<BlobStore, 'get'>;

/** A bundle's blobs, each checked against its name as the local store checks its files. */
function bundleBlobs(bundle: Bundle): BlobReader {
  return {
    get: async (sha256) => {
      const bytes = bundle.blobs.get(sha256);
      if (bytes === undefined) throw new BlobStoreError(sha256, 'missing');
      if (sha256Hex(bytes) !== sha256) throw new BlobStoreError(sha256, 'corrupt');
      return bytes;
    },
  };
}

/** Runs the tree's cells again in fresh kernels bound to no host; 3 when any cell differs or cannot be checked. */
async function verifyCells(config: RecurConfig, events: readonly StoredEvent[], blobs: BlobReader, ctx: CommandContext): Promise<number> {
  let jupyter;
  try {
    jupyter = jupyterConnection(config);
  } catch (e) {
    throw new StackError('jupyter', `no Jupyter server to replay cells in: ${(e as Error).message}`, 'start the stack with `recur up`');
  }
  // No host bridge: a cell calling rlm() or agent_message fails in the replay instead of acting again.
  const kernels = createKernelClient({ ...jupyter, host: createKernelHost(config), pythonPath: `${repoRoot()}/kernel` });
  const onReport = (r: CellReport): void => ctx.out(ctx.flags.json ? cellReportJson(r) : formatCellReport(r));
  let reports: CellReport[];
  try {
    reports = await replayCells({ kernels, blobs, onReport }, events);
  } finally {
    kernels.dispose();
  }
  const count = (v: CellReport['verdict']) => reports.filter((r) => r.verdict === v).length;
  const counts = { same: count('same'), differs: count('differs'), hostCall: count('host-call'), skipped: count('skipped'), unchecked: count('unchecked') };
  if (ctx.flags.json) ctx.out(JSON.stringify({ kind: 'summary', cells: reports.length, ...counts }));
  else ctx.out(`replayed ${reports.length} cells: ${counts.same} same, ${counts.differs} differ, ${counts.hostCall} not replayable (host call), ${counts.skipped} skipped, ${counts.unchecked} unchecked`);
  const bad = reports.find((r) => r.verdict === 'differs' || r.verdict === 'unchecked');
  if (bad) throw new ExitError(3, `${counts.differs + counts.unchecked} cell(s) do not match the log; first ${bad.eventId}: ${bad.detail}`);
  return 0;
}

interface ReplaySource {
  sessionId: string;
  log: LogInOrder;
  keys: Keyring;
  blobs: () => BlobReader;
  /** Where the events came from, for messages. */
  from: string;
}

/** The tree from Kafka and this home's keys and blobs, or from a bundle alone (no stack, no home). */
async function replaySource(ctx: CommandContext, sessionId: string | undefined): Promise<ReplaySource> {
  if (typeof ctx.flags.bundle === 'string') {
    const file = ctx.flags.bundle;
    const bundle = readBundle(file);
    const id = sessionId ?? bundle.manifest.treeId;
    // The bundle's own keys: enough for a replay's warning; an audit names the keys to trust (recur audit verify --bundle --pubkey).
    const keys = keyringOf([...bundle.keys].map(([keyId, pem]) => publicKeyFromPem(pem, `${file}: keys/${keyId}.pem`)));
    return { sessionId: id, log: bundleLog(bundle, id), keys, blobs: () => bundleBlobs(bundle), from: file };
  }
  if (!sessionId) throw new ExitError(2, USAGE);
  const config = loadConfig();
  const kafka = kafkaClient(config, 'reader', `${config.kafka.clientId}-replay`);
  const log = await readLogInOrder({ kafka, topic: config.kafka.topic, sessionId });
  return { sessionId, log, keys: homeKeyring(stackPaths(config).keys), blobs: () => openBlobStore(config), from: config.kafka.topic };
}

/**
 * `recur replay <id>`: the session tree's timeline from Kafka alone (no daemon, no Temporal), in
 * causal order, or from an audit bundle (`--bundle`, no stack at all); with --verify, its workspace
 * hash is checked (verify-workspace.ts) and its cells run again (in the stack's Jupyter) and are
 * compared with what the log says.
 */
export async function replay(ctx: CommandContext): Promise<number> {
  const [id, ...extra] = ctx.args;
  if (extra.length > 0) throw new ExitError(2, USAGE);
  const { sessionId, log, keys, blobs, from } = await replaySource(ctx, id);
  const events = [...log.sessions.values()].flat();
  if (events.length === 0) throw new ExitError(1, `no events logged for ${sessionId} in ${from}`);
  for (const u of log.undecodable) ctx.err(formatProblemLine({ kind: 'problem', problem: 'undecodable', ...u }));
  const verdict = verifyTree(sessionId, log, keys);
  const first = verdict.faults[0];
  if (first) ctx.err(`warning: the log does not verify (${problemSite(first)}: ${first.fault}); see recur audit verify ${sessionId}`);
  if (ctx.flags.verify) {
    const config = loadConfig();
    const problems = await verifyWorkspaces(config, events, { out: ctx.out, err: ctx.err, json: ctx.flags.json === true });
    await verifyCells(config, events, blobs(), ctx);
    if (problems.length) throw new ExitError(3, `the workspace does not verify: ${problems[0]}`);
    return 0;
  }
  const timeline = buildTimeline(sessionId, events);
  if (ctx.flags.json) for (const entry of timeline) ctx.out(timelineJson(entry));
  else for (const line of formatTimeline(sessionId, timeline)) ctx.out(line);
  return 0;
}
