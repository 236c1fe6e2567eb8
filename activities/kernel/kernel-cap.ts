import type { Client } from '@temporalio/client';
import { LimitError } from '../../errors';
import { getStatusQuery, unloadIdleSignal } from '../../workflows/messages';
import { decideKernelAdmission } from './decide-kernel-admission';
import type { JupyterSessions } from './jupyter-sessions';

export const MAX_LOADED_KERNELS_SETTING = 'RECUR_MAX_LOADED_KERNELS';
/** Long enough for an idle session to snapshot a large namespace and shut its kernel down. */
const UNLOAD_WAIT_MS = 60_000;
const POLL_MS = 250;

export interface KernelCap {
  /** Runs `start` (which creates a kernel) once the host has room for one more, refusing with LimitError when it cannot make room. */
  admit<T>(sessionId: string, start: () => Promise<T>): Promise<T>;
}

/**
 * The host's cap on loaded kernels. The Jupyter server's own session list is the count and, by
 * each kernel's last activity, the LRU order: nothing to keep in step with kernels that started,
 * died or were unloaded elsewhere. Room is made by asking idle retained sessions to unload
 * themselves (their workflow snapshots, shuts down and logs SessionUnloaded, as the idle timer
 * does); the host never shuts another session's kernel down behind its back. Admissions run one
 * at a time, so two sessions cannot both take the last slot.
 */
export function createKernelCap(deps: {
  sessions: Pick<JupyterSessions, 'listLoaded'>;
  client: Client;
  max: number;
  waitMs?: number;
}): KernelCap {
  let tail: Promise<unknown> = Promise.resolve();
  const waitMs = deps.waitMs ?? UNLOAD_WAIT_MS;

  const isIdle = (id: string) =>
    deps.client.workflow.getHandle(id).query(getStatusQuery).then((v) => v.phase === 'idle', () => false);

  async function makeRoom(sessionId: string): Promise<void> {
    const loaded = await deps.sessions.listLoaded();
    const decision = decideKernelAdmission(sessionId, loaded, deps.max);
    if (decision.kind === 'admit') return;
    const full = `loaded-kernels-per-host limit: ${loaded.length} of ${deps.max} kernels are loaded on this host`;
    const asked: string[] = [];
    for (const id of decision.candidates) {
      if (asked.length === decision.count) break;
      if (!(await isIdle(id))) continue;
      await deps.client.workflow.getHandle(id).signal(unloadIdleSignal).then(() => asked.push(id), () => undefined);
    }
    if (asked.length < decision.count) {
      throw new LimitError(`${full} and no idle retained sub-agent can be unloaded to start one for ${sessionId}`, `${MAX_LOADED_KERNELS_SETTING}=${deps.max}`);
    }
    const deadline = Date.now() + waitMs;
    while ((await deps.sessions.listLoaded()).length >= deps.max) {
      if (Date.now() > deadline) {
        throw new LimitError(`${full}; ${asked.join(', ')} did not unload within ${waitMs / 1000} s`, `${MAX_LOADED_KERNELS_SETTING}=${deps.max}`);
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  return {
    admit(sessionId, start) {
      const run = tail.then(async () => {
        await makeRoom(sessionId);
        return start();
      });
      tail = run.catch(() => undefined);
      return run;
    },
  };
}
