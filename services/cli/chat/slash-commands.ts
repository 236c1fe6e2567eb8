import type { RecurConfig } from '../../../config';
import { costTree, type CostNode } from '../../projector/cost-tree';
import type { DaemonClient } from '../daemon-client';
import { formatCostTree, readCostTree } from '../commands/cost';
import { formatGoal, goalAction } from '../commands/goal';
import { formatRefine, requestRefine } from '../commands/harness';
import { resolveModel } from '../commands/run';
import { shortSessionId } from '../format-event';
import { readTreeLog } from '../tree-log';
import { requestCompaction, switchModel } from './session-controls';

export interface SlashContext {
  config: RecurConfig;
  daemon: DaemonClient;
  sessionId: string;
  /** One line of output. */
  say: (line: string) => void;
}

/** What a command asks of the chat once it has run: go on, or leave (the session kept or ended). */
export type SlashOutcome = 'continue' | 'detach' | 'quit';

interface Slash {
  usage: string;
  help: string;
  run: (args: string, c: SlashContext) => Promise<SlashOutcome | void>;
}

/** `name [status] model` per agent of the tree, indented by depth. */
export function formatTree(root: CostNode): string[] {
  const lines: string[] = [];
  const walk = (n: CostNode, depth: number): void => {
    lines.push(`${'  '.repeat(depth)}${depth === 0 ? n.sessionId : shortSessionId(n.sessionId)} [${n.status}] ${n.model}`);
    for (const child of n.children) walk(child, depth + 1);
  };
  walk(root, 0);
  return lines;
}

const COMMANDS: Record<string, Slash> = {
  help: { usage: '/help', help: 'this list', run: async (_a, c) => void help(c) },
  refine: {
    usage: '/refine [instructions]', help: "have a refiner review this session and propose harness edits (applied per RECUR_REFINE_APPLY)",
    run: async (args, c) => formatRefine(await requestRefine(c.config, c.sessionId, { instructions: args, global: false, approve: false })).forEach(c.say),
  },
  goal: {
    usage: '/goal [show|pause|resume|clear|complete [evidence]]', help: "show or change the session's goal",
    run: async (args, c) => {
      const [action = 'show', ...evidence] = args.split(/\s+/).filter(Boolean);
      c.say(formatGoal(c.sessionId, await goalAction(c.daemon, c.sessionId, action, evidence.length ? evidence.join(' ') : undefined)));
    },
  },
  compact: {
    usage: '/compact', help: 'summarise older turns at the next model call (logged as a manual Compacted)',
    run: async (_a, c) => {
      await requestCompaction(c.daemon, c.sessionId);
      c.say('compaction requested: the next model call summarises the older turns');
    },
  },
  model: {
    usage: '/model <provider/model|scripted:file>', help: 'switch the model for the next turns (logged as ModelSwitched)',
    run: async (args, c) => {
      if (!args) return c.say('usage: /model <provider/model|scripted:file>');
      const { model } = await switchModel(c.daemon, c.sessionId, resolveModel(args, undefined, process.cwd()));
      c.say(`model → ${model} from the next model call`);
    },
  },
  cost: { usage: '/cost', help: 'tokens, cost and time per agent, from the log', run: async (_a, c) => formatCostTree(await readCostTree(c.config, c.sessionId)).forEach(c.say) },
  tree: {
    usage: '/tree', help: 'the session tree: each agent, its status and model',
    run: async (_a, c) => {
      const tree = costTree(c.sessionId, await readTreeLog(c.daemon, c.sessionId));
      (tree ? formatTree(tree) : [`nothing logged for ${c.sessionId} yet`]).forEach(c.say);
    },
  },
  detach: { usage: '/detach', help: 'leave; the session keeps running (recur chat <id> comes back)', run: async () => 'detach' },
  quit: { usage: '/quit', help: 'end the session for good (as recur kill) and leave', run: async () => 'quit' },
};

function help(c: SlashContext): void {
  const width = Math.max(...Object.values(COMMANDS).map((s) => s.usage.length));
  for (const s of Object.values(COMMANDS)) c.say(`${s.usage.padEnd(width)}  ${s.help}`);
  c.say(`${'Ctrl-C'.padEnd(width)}  interrupt the running cell (the session goes on); twice, or when nothing runs: detach`);
}

/** Runs `/name args`; an unknown name or a failed request is said, and the chat goes on. */
export async function runSlash(line: string, c: SlashContext): Promise<SlashOutcome> {
  const [, name = '', args = ''] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    c.say(`no command /${name}; /help lists them`);
    return 'continue';
  }
  try {
    return (await command.run(args.trim(), c)) ?? 'continue';
  } catch (err) {
    c.say(`/${name} failed: ${(err as Error).message}`);
    return 'continue';
  }
}
