import { sessionPath, type DaemonClient } from '../daemon-client';

/** The chat's controls over a running session (the daemon's routes; each is logged by the session). */
export const requestCompaction = (daemon: DaemonClient, sessionId: string) =>
  daemon.post<{ requested: boolean }>(sessionPath(sessionId, 'compact'), {});

export const switchModel = (daemon: DaemonClient, sessionId: string, model: string) =>
  daemon.post<{ model: string }>(sessionPath(sessionId, 'model'), { model });
