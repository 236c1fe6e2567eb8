import type { RecurEventInput, StoredEvent } from '../../schemas';
import { runCli, terminalSafe } from '../../services/cli/cli';
import { startTestServer, type TestServer } from '../helpers/daemon-test-server';
import { sampleSession } from './event-samples';

const ANY_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/;
const OSC52 = '\x1b]52;c;cm0gLXJmIH4=\x07';
const ERASE = '\x1b[2J\x9b3J';

/** A session whose every agent-written field carries a sequence: answers, outputs, names, recipients, tasks, reasons. */
const HOSTILE: RecurEventInput[] = [
  { type: 'SessionStarted', task: `t${OSC52}ask`, name: 'root', model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60 },
  { type: 'CellRequested', cellId: 'c1', code: `print("${ERASE}")` },
  {
    type: 'CellExecuted', requestId: 'r0abc/1', code: 'x', status: 'error', outputs: `progress 10%\rdone${ERASE}`, durationMs: 5,
    errorName: `Value${OSC52}Error`, errorValue: '\x1bP1$r0m\x1b\\bad',
  },
  { type: 'MessageSent', from: 'r0abc', to: `r0abc/\x9d0;owned\x9chelper`, messageId: 'm1', text: `hi${OSC52}`, textBlob: null },
  { type: 'MessageRefused', from: 'r0abc', to: `stranger\x1b[8m`, reason: `not family\x1bc` },
  { type: 'SessionCompleted', answer: `the answer${OSC52}\n\x1b[1Amore` },
];

describe('every line the CLI prints is terminal-safe', () => {
  let srv: TestServer;
  const env = { ...process.env };
  const events = sampleSession('r0abc', HOSTILE).records as StoredEvent[];

  beforeAll(async () => {
    srv = await startTestServer({ readLog: async () => ({ events, problems: [{ kind: 'problem', problem: 'undecodable', reason: `bad record${OSC52}` }] }) });
    process.env.RECUR_HOME = srv.config.home;
    process.env.RECUR_DAEMON_PORT = String(srv.config.ports.daemon);
  });
  afterAll(async () => {
    process.env = { ...env };
    await srv.close();
  });

  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };

  test('recur logs prints agent text without its control sequences', async () => {
    const { code, out, err } = await cli('logs', 'r0abc');
    expect(code).toBe(0);
    expect(out).toHaveLength(HOSTILE.length);
    for (const line of [...out, ...err]) expect({ line, control: ANY_CONTROL.test(line) }).toEqual({ line, control: false });
    expect(out[2]).toContain('ValueError: bad');
    // A quoted fact shows C0 controls as JSON escapes, visible; the writer drops the C1 CSI JSON leaves raw.
    expect(out[2]).toContain('→ "progress 10%\\rdone\\u001b[2J"');
    expect(out[3]).toContain('r0abc → r0abc/helper: "hi\\u001b]52;');
    expect(out[5]).toBe('r0abc #5 SessionCompleted  answer: "the answer\\u001b]52;c;cm0gLXJmIH4=\\u0007 …"');
    expect(err).toEqual(['problem (undecodable): bad record']);
  });

  test('recur logs --json keeps every value exactly as logged, with no raw control on the line', async () => {
    const { out } = await cli('logs', 'r0abc', '--json');
    const lines = out.slice(1);
    for (const line of out) expect(ANY_CONTROL.test(line)).toBe(false);
    expect(lines.map((l) => JSON.parse(l))).toEqual(JSON.parse(JSON.stringify(events)));
    expect((JSON.parse(lines[3]) as StoredEvent & { event: { to: string } }).event.to).toBe('r0abc/\x9d0;owned\x9chelper');
  });

  test('an unknown command named with sequences is echoed without them', async () => {
    const { code, err } = await cli(`x${OSC52}y`);
    expect(code).toBe(2);
    expect(err[0]).toMatch(/^recur: unknown command "xy"/);
  });

  test('raw agent text a command prints whole (run\'s final answer) loses its sequences; stderr is stripped in --json mode too', () => {
    const seen: string[] = [];
    const io = { out: (l: string) => seen.push(`out:${l}`), err: (l: string) => seen.push(`err:${l}`) };
    terminalSafe(io, false).out(`the answer${OSC52}\n\x1b[1Amore`);
    terminalSafe(io, true).err(`session failed: ${ERASE}why`);
    expect(seen).toEqual(['out:the answer\nmore', 'err:session failed: why']);
  });
});
