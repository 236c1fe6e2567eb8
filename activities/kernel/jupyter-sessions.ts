import { type ServerConnection, type Session, SessionAPI } from '@jupyterlab/services';

/**
 * The sessionId → kernel mapping lives on the Jupyter server, as a Jupyter session whose path
 * is `recur/<sessionId>`, so a worker that restarts (or any other worker) finds the live
 * kernel with one REST call and `GET /api/sessions` shows which kernel serves which session.
 */
export const SESSION_TYPE = 'recur';

export const sessionPath = (sessionId: string): string => `recur/${sessionId}`;

/** A Recur session's kernel on the server, with when it last did anything (a kernel-cap candidate). */
export interface LoadedKernel {
  sessionId: string;
  lastActivityMs: number;
}

export function createJupyterSessions(settings: ServerConnection.ISettings, kernelName: string) {
  async function find(sessionId: string): Promise<Session.IModel | undefined> {
    const path = sessionPath(sessionId);
    return (await SessionAPI.listRunning(settings)).find((s) => s.path === path);
  }
  return {
    find,
    /** Every Recur session's kernel on this server: the host's loaded count, and its LRU order. */
    async listLoaded(): Promise<LoadedKernel[]> {
      const running = await SessionAPI.listRunning(settings);
      return running.filter((s) => s.type === SESSION_TYPE && s.path.startsWith('recur/') && s.kernel).map((s) => ({
        sessionId: s.path.slice('recur/'.length),
        lastActivityMs: Date.parse(s.kernel?.last_activity ?? '') || 0,
      }));
    },
    /**
     * The session's Jupyter session, created with a new kernel if none exists (the server dedupes
     * by path). `name` is the session's sandbox key: the server starts the kernel by its policy.
     */
    ensure(sessionId: string, name: string): Promise<Session.IModel> {
      const options = { path: sessionPath(sessionId), name, type: SESSION_TYPE, kernel: { name: kernelName } };
      return SessionAPI.startSession(options, settings);
    },
    /** Deletes the Jupyter session, which shuts its kernel down. */
    async remove(sessionId: string): Promise<void> {
      const model = await find(sessionId);
      if (model) await SessionAPI.shutdownSession(model.id, settings);
    },
  };
}

export type JupyterSessions = ReturnType<typeof createJupyterSessions>;
