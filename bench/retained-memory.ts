import { setTimeout as sleep } from 'node:timers/promises';
import { kafkaClient } from '../config/connections';
import { readSessionLog } from '../services/projector';
import { deliverMessageSignal } from '../workflows/messages';
import { py, scriptedAgents, sessionInput, startBenchWorker } from './bench-worker';
import type { BenchContext } from './benchmark';
import { treeMemory } from './proc-memory';
import { compare, type Measured } from './report';
import { summarize } from './stats';

const median = (xs: number[]) => summarize(xs).median;

/** Each retained sub-agent's first and only task: hold a 100k-int list, then answer. */
const HOLD = [py('data = list(range(100_000))'), 'held'];

/** How many of `children` have logged each event type, from the tree's logs. Pure. */
export function countLogged(sessions: ReadonlyMap<string, ReadonlyArray<{ type: string }>>, children: readonly string[], type: string): number {
  return children.filter((id) => (sessions.get(id) ?? []).some((e) => e.type === type)).length;
}

/** A root that spawns `n` sub-agents, waits for their answers, then for a message from the user before it ends. */
export function retainedScript(n: number): Record<string, string[]> {
  const names = Array.from({ length: n }, (_, i) => `held${i}`);
  const root = py(`
hs = [rlm("hold data", name=n) for n in ${JSON.stringify(names)}]
print([h.result(timeout=600) for h in hs])
while (m := agent_message.recv(timeout=3600))["from"] != "user":
    pass`);
  return { root: [root, 'done'], ...Object.fromEntries(names.map((name) => [name, HOLD])) };
}

/**
 * Memory of the Jupyter server's tree with `n` real retained sub-agents (Recur sessions that
 * answered and idle) loaded, then after the idle timer unloaded them: what idle unload frees.
 */
export async function retainedMemory(ctx: BenchContext, serverPid: number, n: number, idleUnloadSeconds: number): Promise<Measured> {
  const worker = await startBenchWorker(ctx.config);
  const agents = retainedScript(n);
  const input = sessionInput(ctx.config, scriptedAgents(ctx.config, agents), { idleUnloadSeconds });
  const children = Object.keys(agents).filter((a) => a !== 'root').map((name) => `${input.sessionId}/${name}`);
  const kafka = kafkaClient(ctx.config, 'reader', 'bench-reader');
  const waitFor = async (what: string, type: string, limitMs: number) => {
    for (const end = Date.now() + limitMs; Date.now() < end; await sleep(500)) {
      const log = await readSessionLog({ kafka, topic: ctx.config.kafka.topic, sessionId: input.sessionId });
      if (countLogged(log.sessions, children, type) === n) return log.sessions;
    }
    throw new Error(`retained-memory: gave up waiting for ${what}`);
  };
  const readings = async () => {
    const out: number[] = [];
    for (let i = 0; i < 5; i++, await sleep(200)) out.push(treeMemory(serverPid).rssMiB);
    return out;
  };
  const handle = await worker.client.workflow.start('agentSessionWorkflow', { taskQueue: worker.taskQueue, workflowId: input.sessionId, args: [input] });
  try {
    ctx.log(`kernel-memory: ${n} retained sub-agents, idle unload after ${idleUnloadSeconds} s`);
    const answered = await waitFor('the sub-agents to answer', 'SessionCompleted', 300_000);
    const early = countLogged(answered, children, 'SessionUnloaded');
    if (early > 0) throw new Error(`retained-memory: ${early} sub-agent(s) unloaded before all had answered; raise idleUnloadSeconds`);
    const loaded = await readings();
    await waitFor('the idle timer to unload them', 'SessionUnloaded', idleUnloadSeconds * 1000 + 300_000);
    await sleep(1000);
    const unloaded = await readings();
    await handle.signal(deliverMessageSignal, { messageId: `${input.sessionId}#bench-end`, from: 'user', text: 'end' });
    await handle.result();
    return compare({
      name: 'kernel-memory/idle-unload', title: `Jupyter server + ${n} retained sub-agents: loaded vs after idle unload`, unit: 'MiB RSS', better: 'lower',
      subject: { label: `${n} retained sub-agents loaded (idle, answered)`, samples: loaded },
      baseline: { label: `the same sub-agents after the idle timer unloaded them`, samples: unloaded },
      limits: 'real Recur sessions on the bench worker; both readings include the root session\'s own kernel (never unloaded while it waits); RSS counts shared pages once per process',
      details: { subAgents: n, idleUnloadSeconds, freedMiB: median(loaded) - median(unloaded) },
    });
  } finally {
    await handle.terminate().catch(() => undefined);
    await worker.close();
  }
}
