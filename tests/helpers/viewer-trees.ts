import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredEvent } from '../../schemas';
import type { StartSessionReply, TreeReply } from '../../services/daemon/api-types';
import { parseTreeBody } from '../../services/daemon/tree-lines';
import { sessionPath } from '../../services/cli/daemon-client';
import { stackDaemon } from './browser';
import { py, scriptsDir, SessionHarness } from './session-harness';

/**
 * Session trees for the viewer's browser tests, run the way a user runs them: started through
 * the stack's daemon, run by its worker on the scripted model.
 */
export async function startTree(agents: Record<string, string[]>, task: string): Promise<string> {
  const file = join(scriptsDir(), 'viewer.json');
  writeFileSync(file, JSON.stringify({ agents }));
  // retain: false ends the root at its answer, as `recur run --once` does.
  const reply = await stackDaemon().post<StartSessionReply>('/v1/sessions', { task, model: `scripted:${file}`, retain: false });
  return reply.sessionId;
}

/** Waits for the tree's root workflow to end (Temporal's answer, no polling). */
export async function treeEnded(id: string): Promise<void> {
  const h = new SessionHarness();
  await h.connect();
  try {
    await h.result(id);
  } finally {
    await h.stop();
  }
}

/** The tree as the viewer loads it (`GET /v1/sessions/:id/tree`, read whole), with the daemon token. */
export async function treeOf(id: string): Promise<TreeReply> {
  const daemon = stackDaemon();
  const res = await fetch(`${daemon.url}${sessionPath(id, 'tree')}`, { headers: { authorization: `Bearer ${daemon.token}` } });
  if (!res.ok) throw new Error(`GET ${sessionPath(id, 'tree')}: ${res.status} ${await res.text()}`);
  return parseTreeBody(await res.text());
}

export const eventsOf = async (id: string, type: string): Promise<StoredEvent[]> => (await treeOf(id)).events.filter((e) => e.type === type);

export const BIG_OUTPUT_LINES = 3000;

/**
 * A root that spawns two sub-agents, prints more than fits inline (the outputs go to the blob
 * store) and answers: four cells, so the kernel is snapshotted (every 3 cells by default).
 */
export const FINISHED_TREE = {
  root: [
    py('label = "viewer"\nprint(label)'),
    py(`
a = rlm("compute 6*7", name="alpha")
b = rlm("compute 10+5", name="beta")
ra, rb = a.result(timeout=120), b.result(timeout=120)
total = int(ra) + int(rb)
print(ra, rb, total)`),
    py(`print("\\n".join(f"line {i}" for i in range(${BIG_OUTPUT_LINES})))`),
    py('final(total)'),
  ],
  alpha: [py('x = 6 * 7\nprint(x)'), '42'],
  beta: [py('y = 10 + 5'), py('final(y)')],
};

/** A root whose one cell waits for a message from the user: it runs until the test sends one. */
export const WAITING_TREE = { root: [py('m = agent_message.recv()\nprint("got", m["text"])'), 'done'] };

/** Sends the user message a WAITING_TREE's cell waits for. */
export const release = (id: string) => stackDaemon().post(sessionPath(id, 'messages'), { text: 'go' });
