import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { Admin } from 'kafkajs';
import { alterTopicSettings, topicSettings } from '../../activities/event-topic';
import { loadConfig } from '../../config';
import { kafkaClient, temporalAddress } from '../../config/connections';
import { recur } from '../helpers/run-cli';
import { SessionHarness, py, scriptsDir } from '../helpers/session-harness';

/*
 * A terminal event, always, on the real stack: a broker that refuses an append ends the session
 * with SessionFailed and `recur run` exits 1; a workflow that closed with no end event in its log
 * (terminated from outside) makes `recur run` exit 1 with a clear message instead of waiting forever.
 */
const config = loadConfig();
const dir = scriptsDir();
let admin: Admin;
let connection: Connection;
let client: Client;
const h = new SessionHarness();

function script(name: string, agents: Record<string, string[]>): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ agents }));
  return `scripted:${file}`;
}

/**
 * Sets the topic's max.message.bytes and waits until the broker reports it. kafkajs speaks only
 * the legacy AlterConfigs, which replaces every setting made on the topic: the others (no expiry,
 * no bound on future timestamps: ensureTopic) go with it, or the tests after this one would write
 * to a topic that expires its records and refuses a virtual clock's.
 */
async function setTopicMaxBytes(value: string): Promise<void> {
  const settings = { ...(await topicSettings(admin, config.kafka.topic)), 'max.message.bytes': value };
  await alterTopicSettings(admin, config.kafka.topic, settings);
  for (;;) {
    const now = await topicSettings(admin, config.kafka.topic);
    if (now['max.message.bytes'] === value) return void expect(now).toEqual(settings);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  admin = kafkaClient(config, 'admin').admin();
  await admin.connect();
  connection = await Connection.connect({ address: temporalAddress(config) });
  client = new Client({ connection, namespace: config.temporal.namespace });
  await h.start();
}, 120_000);
afterAll(async () => {
  await h.stop();
  await admin?.disconnect();
  await connection?.close();
});

describe('every session ends with a terminal event, and recur run exits non-zero without one', () => {
  it('the broker refuses a cell\'s CellExecuted: the session logs SessionFailed naming why, and recur run exits 1', async () => {
    // 6 KB of output stays inline (under 8 KB), so the broker's 4 KB record limit refuses that one event.
    const model = script('too-big', { root: [py('print("y" * 6000)'), 'never reached'] });
    await setTopicMaxBytes('4000');
    let result;
    try {
      result = await recur(['run', 'print a lot', '--model', model, '--json']);
    } finally {
      await setTopicMaxBytes('1048588');
    }
    expect(result.code).toBe(1);
    const events = result.lines.map((l) => JSON.parse(l));
    const last = events[events.length - 1];
    expect(last).toMatchObject({ type: 'SessionFailed', event: { kind: 'internal' } });
    // The cell's end rides the next carrier, which writes it before anything else (SessionLog.ride):
    // here the worker's steps (workflows/worker-steps.ts), to whom the placed session's log is handed.
    expect(last.event.reason).toMatch(/runSteps failed for good: append of .*\/3 to .* failed/);
    expect(events.map((e) => e.type)).toEqual(['SessionStarted', 'ModelCalled', 'CellRequested', 'SessionFailed']);
  });

  it('a session terminated from outside (no end event logged): recur run says so and exits 1', async () => {
    const model = script('wait', { root: [py('m = agent_message.recv(timeout=120)')] });
    let id = '';
    const result = await recur(['run', 'wait forever', '--model', model, '--json'], {
      onLine: (line) => {
        const e = JSON.parse(line);
        if (e.type !== 'CellRequested') return;
        id = e.sessionId;
        void client.workflow.getHandle(id).terminate('operator pulled the plug');
      },
    });
    expect(id).not.toBe('');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${id} is terminated but logged no end event`);
  });
});

describe('limits reach the kernel as LimitError naming the limit', () => {
  it('a spawn past maxChildren and a send past the message burst raise LimitError (a PermissionError) in the cell', async () => {
    const run = await h.run({
      root: [py(`
a = rlm("wait for me", name="a")
try:
    rlm("one too many", name="b")
except PermissionError as e:
    print("spawn:", type(e).__name__, e)
agent_message.send("one", to="child:a")
try:
    agent_message.send("two", to="child:a")
except PermissionError as e:
    print("send:", type(e).__name__, e)
`), 'done'],
      a: ['ok'],
    }, 'hit the limits', { maxChildren: 1, messageBurst: 1, messagesPerMinute: 1 });
    expect(run.result).toMatchObject({ status: 'completed' });
    const [cell] = run.of('CellExecuted');
    expect(cell.outputs).toContain('spawn: LimitError rlm.spawn: children-per-session limit');
    expect(cell.outputs).toContain('RECUR_MAX_CHILDREN=1');
    expect(cell.outputs).toContain('send: LimitError agent_message.send: message rate limit');
    expect(run.of('SpawnRefused')).toEqual([expect.objectContaining({ name: 'b', limit: 'children_per_session' })]);
    expect(run.of('MessageRefused')).toEqual([expect.objectContaining({ to: 'child:a', reason: expect.stringContaining('message rate limit') })]);
  });
});
