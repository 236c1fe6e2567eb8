import { type ServerConnection, type Session, SessionAPI } from '@jupyterlab/services';

/**
 * The sessionId → kernel mapping lives on the Jupyter server, as a Jupyter session whose path
 * is `recur/<sessionId>`, so a worker that restarts (or any other worker) finds the live
 * kernel with one REST call and `GET /api/sessions` shows which kernel serves which session.
 */
export const SESSION_TYPE = 'recur';

export const sessionPath = (sessionId: string): string => `recur/${sessionId}`;

export function createJupyterSessions(settings: ServerConnection.ISettings, kernelName: string) {
  async function find(sessionId: string): Promise<Session.IModel | undefined> {
    const path = sessionPath(sessionId);
    return (await SessionAPI.listRunning(settings)).find((s) => s.path === path);
  }
  return {
    find,
    /** The session's Jupyter session, created with a new kernel if none exists (the server dedupes by path). */
    ensure(sessionId: string): Promise<Session.IModel> {
      const options = { path: sessionPath(sessionId), name: sessionId, type: SESSION_TYPE, kernel: { name: kernelName } };
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
