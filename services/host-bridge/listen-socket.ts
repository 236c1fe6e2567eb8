import { chmodSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';
import { RecurError } from '../../errors';

/** The longest socket path Linux binds (sun_path is 108 bytes, NUL included). */
const MAX_SOCKET_PATH = 107;

/**
 * Listens on a session's Unix socket (the bridge's, the egress proxy's), replacing a stale one a
 * dead worker left. The kernel runs as another uid; the directory, seen by its sandbox alone, is
 * the guard, so the socket itself is open to all.
 */
export async function listenOnSocket(server: Server, socketPath: string, what: string): Promise<void> {
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > MAX_SOCKET_PATH) {
    throw new RecurError(`${what} socket path is ${bytes} bytes, over Linux's ${MAX_SOCKET_PATH}: ${socketPath}`, { hint: 'use a shorter RECUR_HOME' });
  }
  try {
    rmSync(socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(socketPath, 0o666);
  } catch (e) {
    throw new RecurError(`${what} cannot listen on ${socketPath}: ${(e as Error).message}`);
  }
}
