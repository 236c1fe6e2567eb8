import { parseArgs, type ParseArgsConfig } from 'node:util';
import { join } from 'node:path';
import { escapeControlsInJson, stripControls } from '../../activities/control-text';
import { CONFIG_ENV_VARS } from '../../config';
import { ExitError } from '../../errors';
import { repoRoot } from '../home/repo-root';
import { LONG_RUN_OPTIONS, LONG_RUN_USAGE } from './long-run-flags';
import { CI_OPTIONS, CI_USAGE, ciRequestedIn } from './ci/ci-flags';
import { CI_EXIT } from './ci/exit-codes';
import { BUDGET_OPTIONS, BUDGET_USAGE } from './budget-flags';
import { BACKUP_OPTIONS, BACKUP_USAGE } from './backup-flags';
import type { CliIo, CommandContext } from './command-context';


interface Command {
  summary: string;
  usage: string;
  options?: ParseArgsConfig['options'];
  /** Takes the CI flags: in CI mode even a bad flag exits 3, not 2 (docs/ci.md). */
  ci?: true;
  load: () => Promise<(ctx: CommandContext) => Promise<number>>;
  /** The docs/ page `--help` points at, when the command has its own; otherwise cli.md. */
  doc?: string;
}

/** The command table. Each command lives in commands/<name>.ts and is loaded only when run. */
const COMMANDS: Record<string, Command> = {
  demo: {
    summary: "Recur's main job on the embedded default: start the local stack and run a multi-agent session on it",
    usage: 'recur demo [--model provider/model] [--json]',
    options: { model: { type: 'string', short: 'm' }, json: { type: 'boolean' } },
    load: async () => (await import('./commands/demo')).demo,
  },
  up: {
    summary: 'install what is missing and start the embedded stack (Kafka, Temporal, Jupyter)',
    usage: 'recur up',
    load: async () => (await import('./commands/up')).up,
  },
  down: {
    summary: 'stop everything `recur up` started',
    usage: 'recur down',
    load: async () => (await import('./commands/down')).down,
  },
  status: {
    summary: "show each service of the stack and of every host started from this home (`host` field in --json); exit 1 unless all are healthy",
    usage: 'recur status [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/status')).status,
  },
  host: {
    summary: 'start or stop another host (a worker and its own Jupyter server) of this cluster: on this machine under the home, on another it joins the Kafka, Temporal and blob store configured',
    usage: 'recur host start --id ID [--jupyter-port PORT] [--json] | recur host stop --id ID',
    options: { id: { type: 'string' }, 'jupyter-port': { type: 'string' }, json: { type: 'boolean' } },
    load: async () => (await import('./commands/host')).host,
  },
  setup: {
    summary: "install Recur's tools (Python venv, Temporal CLI, Kafka jars, the local/smollm2 model) without starting anything; --browser adds Debian's Chromium for the viewer's browser tests; --slurm installs and starts a one-node Slurm (slurm-wlm, munge) for the Slurm job executor; --virtual-clock adds Temporal's time-skipping test server for the virtual job executor's long-horizon tests",
    usage: 'recur setup [--force] [--browser] [--slurm] [--virtual-clock]',
    options: { force: { type: 'boolean' }, browser: { type: 'boolean' }, slurm: { type: 'boolean' }, 'virtual-clock': { type: 'boolean' } },
    load: async () => (await import('./commands/setup')).setup,
  },
  run: {
    summary: 'start a root agent session and stream its events (and its sub-agents\') until it answers; it then stays open for `recur send` (not with --once or in CI mode)',
    usage: `recur run "<task>" [--model <provider/model>|scripted:<file>] [--name <label>] [--net none|full|allow:HOST[:PORT],…] [--cwd DIR] [--research TASK [--knowledge weights-only|archive|full] [--generators MODEL[,MODEL…]]] [--once] [--detach] [--json] ${BACKUP_USAGE} ${LONG_RUN_USAGE} ${BUDGET_USAGE} ${CI_USAGE}`,
    options: {
      model: { type: 'string', short: 'm' }, name: { type: 'string' }, net: { type: 'string' }, cwd: { type: 'string' }, research: { type: 'string' }, knowledge: { type: 'string' }, generators: { type: 'string' }, once: { type: 'boolean' }, detach: { type: 'boolean', short: 'd' }, json: { type: 'boolean' },
      ...BACKUP_OPTIONS, ...LONG_RUN_OPTIONS, ...BUDGET_OPTIONS, ...CI_OPTIONS,
    },
    ci: true,
    load: async () => (await import('./commands/run')).run,
  },
  fork: {
    summary: "start a new root session whose history is another's up to one event (kernel restored to that point) and stream it like run; it stays open like a run",
    usage: `recur fork <session-id> --at <seq> ["<new instruction>"] [--model <provider/model>|scripted:<file>] [--cwd DIR] [--once] [--detach] [--json] ${CI_USAGE}`,
    options: {
      at: { type: 'string' }, model: { type: 'string', short: 'm' }, cwd: { type: 'string' }, once: { type: 'boolean' }, detach: { type: 'boolean', short: 'd' }, json: { type: 'boolean' }, ...CI_OPTIONS,
    },
    ci: true,
    load: async () => (await import('./commands/fork')).fork,
  },
  chat: {
    summary: 'talk to a session in the terminal: start one (or attach by id), watch the tree stream, send follow-ups, /help for commands',
    usage: `recur chat [<session-id>] | recur chat [--task "<text>"] [--model <provider/model>|scripted:<file>] [--name <label>] [--net …] [--cwd DIR] ${BACKUP_USAGE} ${LONG_RUN_USAGE} ${BUDGET_USAGE}`,
    options: {
      task: { type: 'string', short: 't' }, model: { type: 'string', short: 'm' }, name: { type: 'string' }, net: { type: 'string' }, cwd: { type: 'string' },
      ...BACKUP_OPTIONS, ...LONG_RUN_OPTIONS, ...BUDGET_OPTIONS,
    },
    load: async () => (await import('./chat/chat')).chat,
  },
  attach: {
    summary: 'resume streaming a session from where the last Ctrl-C left it, until it ends',
    usage: `recur attach <session-id> [--json] ${CI_USAGE}`,
    options: { json: { type: 'boolean' }, ...CI_OPTIONS },
    ci: true,
    load: async () => (await import('./commands/attach')).attach,
  },
  ls: {
    summary: 'list root and sub-agent sessions known to Temporal',
    usage: 'recur ls [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/ls')).ls,
  },
  logs: {
    summary: "print a session tree's events logged so far (does not follow)",
    usage: 'recur logs <session-id> [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/logs')).logs,
  },
  send: {
    summary: 'send a message to a session (it reads it before its next model call); to a root that answered, a follow-up it answers in the same kernel; --wait prints that answer',
    usage: 'recur send <session-id> "<text>" [--wait] [--json]',
    options: { json: { type: 'boolean' }, wait: { type: 'boolean', short: 'w' } },
    load: async () => (await import('./commands/send')).send,
  },
  interrupt: {
    summary: "interrupt a session's running cell without ending the session (its model reads that the operator interrupted it)",
    usage: 'recur interrupt <session-id> [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/controls')).interrupt,
  },
  model: {
    summary: "switch a session's model for its next model calls (logged as ModelSwitched)",
    usage: 'recur model <session-id> <provider/model|scripted:file> [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/controls')).model,
  },
  compact: {
    summary: "compact a session's transcript at its next model call (Compacted, manual)",
    usage: 'recur compact <session-id> [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/controls')).compact,
  },
  diff: {
    summary: "print a session's net change to its workspace (unified diff, from its end scan in the log); --stat: git's diff stat",
    usage: 'recur diff <session-id> [--stat] [--json]',
    options: { stat: { type: 'boolean' }, json: { type: 'boolean' } },
    load: async () => (await import('./commands/diff')).diff,
  },
  replay: {
    summary: "print a session tree's whole timeline in causal order from the event log alone; --verify checks its workspace hash and re-runs its cells",
    usage: 'recur replay <session-id> [--json] [--verify] | recur replay --bundle FILE [<session-id>] [--json] [--verify]',
    options: { json: { type: 'boolean' }, verify: { type: 'boolean' }, bundle: { type: 'string' } },
    load: async () => (await import('./commands/replay')).replay,
  },
  cost: {
    summary: "print a session tree's tokens (in/out), cost and time per agent, from the event log alone",
    usage: 'recur cost <session-id> [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/cost')).cost,
  },
  audit: {
    summary: "verify a session tree's log (gaps, order, edits, hash chain, signatures, tree shape), in Kafka or an audit bundle; exit 3 naming the first bad event",
    usage: 'recur audit verify <session-id> [--pubkey FILE]... [--json] | recur audit verify --bundle FILE [<session-id>] [--pubkey FILE]... [--json]',
    options: { json: { type: 'boolean' }, pubkey: { type: 'string', multiple: true }, bundle: { type: 'string' } },
    load: async () => (await import('./commands/audit')).audit,
  },
  export: {
    summary: "write a session tree's audit bundle: its records as they are in Kafka, every blob they name and the signing public keys; --html: the viewer over it as one file that opens from disk",
    usage: 'recur export <session-id> [--out FILE] [--html FILE] [--pubkey FILE]... [--json] | recur export --bundle FILE --html FILE [--pubkey FILE]... [--json]',
    options: { out: { type: 'string', short: 'o' }, html: { type: 'string' }, bundle: { type: 'string' }, pubkey: { type: 'string', multiple: true }, json: { type: 'boolean' } },
    load: async () => (await import('./commands/export')).exportBundle,
  },
  keys: {
    summary: "list the event log's signing keys (* marks the signer), or rotate: a new signer, old public keys kept",
    usage: 'recur keys [ls] [--json] | recur keys rotate [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/keys')).keys,
  },
  harness: {
    summary: 'list, show and revert Continual Harness edits (prompt notes, sub-agent specs, skills, memory)',
    usage: 'recur harness ls [<session-id>] [--global] [--json] | show <edit-id> [--json] | revert <edit-id|refine-id> [--json]',
    options: { json: { type: 'boolean' }, global: { type: 'boolean' } },
    load: async () => (await import('./commands/harness')).harness,
  },
  refine: {
    summary: "have a refiner review a session's trajectory and propose harness edits; validated, previewed, applied per RECUR_REFINE_APPLY",
    usage: 'recur refine <session-id> [--instructions "<text>"] [--global] [--approve] [--json] | recur refine approve <refine-id>',
    options: { json: { type: 'boolean' }, global: { type: 'boolean' }, approve: { type: 'boolean' }, instructions: { type: 'string' } },
    load: async () => (await import('./commands/harness')).refine,
  },
  goal: {
    summary: "show a session's goal, or pause, resume, clear or complete it as an operator (also an open-ended one)",
    usage: 'recur goal <session-id> [show|pause|resume|clear|complete ["evidence"]] [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/goal')).goal,
  },
  schedule: {
    summary: 'list, add or cancel the heartbeats and timed prompts that re-enter a running session',
    usage: 'recur schedule <session-id> [ls | add "<spec: in 10m|every 5m|at <ISO>|cron>" "<instruction>" | cancel <id>] [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/schedule')).schedule,
  },
  approvals: {
    summary: 'list what running sessions wait on an operator for (global harness edits, spending, egress)',
    usage: 'recur approvals [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/approvals')).approvals,
  },
  approve: {
    summary: 'answer an approval yes: the waiting cell or model call goes ahead (logged as ApprovalDecided)',
    usage: 'recur approve <approval-id> [--reason "<text>"] [--by <name>] [--json]',
    options: { json: { type: 'boolean' }, reason: { type: 'string' }, by: { type: 'string' } },
    load: async () => (await import('./commands/approvals')).approve,
  },
  deny: {
    summary: 'answer an approval no: the waiting cell gets ApprovalRefusedError (logged as ApprovalDecided)',
    usage: 'recur deny <approval-id> [--reason "<text>"] [--by <name>] [--json]',
    options: { json: { type: 'boolean' }, reason: { type: 'string' }, by: { type: 'string' } },
    load: async () => (await import('./commands/approvals')).deny,
  },
  models: {
    summary: 'list every model provider, its spec form, what it needs (keys, logins, files) and whether that is in place here',
    usage: 'recur models [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/models')).models,
  },
  login: {
    summary: 'log in to a subscription (chatgpt, copilot) with its device code: prints a URL and a code, waits for approval (Ctrl-C cancels)',
    usage: 'recur login <chatgpt|copilot> [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/login')).login,
  },
  logout: {
    summary: "delete a subscription's stored login",
    usage: 'recur logout <chatgpt|copilot> [--json]',
    options: { json: { type: 'boolean' } },
    load: async () => (await import('./commands/login')).logout,
  },
  ui: {
    summary: 'print (and open, where a desktop exists) a one-time link that signs a browser in to the audit viewer the daemon serves (--bundle: recur view)',
    usage: 'recur ui [--no-open] | recur ui --bundle BUNDLE [--pubkey FILE]... [--port N] [--no-open]',
    options: { 'no-open': { type: 'boolean' }, bundle: { type: 'string' }, pubkey: { type: 'string', multiple: true }, port: { type: 'string' } },
    load: async () => (await import('./commands/ui')).ui,
    doc: 'viewer.md',
  },
  view: {
    summary: 'serve the audit viewer over one audit bundle on loopback, with no stack and no home; prints a one-time link (its last line); Ctrl-C stops it',
    usage: 'recur view BUNDLE [--pubkey FILE]... [--port N] [--no-open]',
    options: { 'no-open': { type: 'boolean' }, pubkey: { type: 'string', multiple: true }, port: { type: 'string' } },
    load: async () => (await import('./commands/view')).view,
    doc: 'viewer.md',
  },
  research: {
    summary: 'shipped research tasks: init writes a workspace for a task; judge runs its frozen judge on one and prints the verdict (exit 0 accepted, 1 rejected); ledger prints a research session\'s ledger from its log; report sums it up (records, tokens and cost per accepted record, idle fraction) and charts the record over time as record.png',
    usage: 'recur research init DIR --task NAME [--knowledge weights-only|archive|full] [--json] | recur research judge DIR [--task NAME] [--problem small|large] [--trials N] [--scale-up] [--json] | recur research ledger SESSION-ID [--json] | recur research report SESSION-ID [--out DIR|-] [--json]',
    options: { task: { type: 'string' }, knowledge: { type: 'string' }, problem: { type: 'string' }, trials: { type: 'string' }, 'scale-up': { type: 'boolean' }, out: { type: 'string', short: 'o' }, json: { type: 'boolean' } },
    load: async () => (await import('./commands/research')).research,
  },
  kill: {
    summary: 'end a session and its sub-agents for good (a root that stayed open after its answer too)',
    usage: 'recur kill <session-id>',
    load: async () => (await import('./commands/kill')).kill,
  },
};

/** The reference pages beside this code, as a path the reader can open. */
const docs = (page: string): string => join(repoRoot(), 'docs', page);

function help(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((k) => k.length));
  return [
    'recur — durable, event-sourced runtime for recursive language-model agents',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Examples:',
    '  recur up && recur status',
    '  recur status --json',
    '',
    `Configuration (environment): ${CONFIG_ENV_VARS.join(', ')}`,
    'or <RECUR_HOME>/config.json.',
    '',
    `Every command and flag: ${docs('cli.md')}; every setting and its default: ${docs('configuration.md')}`,
  ].join('\n');
}

/**
 * Every line a command prints passes here, so no command can forget: agent text (answers,
 * outputs, exception names, recipients) never drives the operator's terminal. With --json,
 * stdout carries JSON, kept faithful: controls JSON.stringify leaves raw are \u-escaped, so each
 * line parses to exactly what was logged. Human text on stderr is stripped either way.
 */
export function terminalSafe(io: CliIo, json: boolean): CliIo {
  return {
    out: (line) => io.out(json ? escapeControlsInJson(line) : stripControls(line)),
    err: (line) => io.err(stripControls(line)),
  };
}

export async function runCli(argv: string[], raw: CliIo = { out: console.log, err: console.error }): Promise<number> {
  let io = terminalSafe(raw, false);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(help());
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`recur: unknown command "${name}"\n\n${help()}`);
    return 2;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
  } catch (e) {
    throw new ExitError(command.ci && ciRequestedIn(rest) ? CI_EXIT.infrastructure : 2, `${(e as Error).message}\nusage: ${command.usage}`);
  }
  if (parsed.values.help) {
    io.out(`usage: ${command.usage}\n\n${command.summary}\n\nMore: ${docs(command.doc ?? 'cli.md')}`);
    return 0;
  }
  io = terminalSafe(raw, (parsed.values as Record<string, unknown>).json === true);
  const run = await command.load();
  return run({ args: parsed.positionals, flags: parsed.values, ...io });
}
