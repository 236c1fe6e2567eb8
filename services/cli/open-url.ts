import { spawn } from 'node:child_process';

/** The desktop's URL opener, or null where no desktop browser can show the page. */
export function urlOpener(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'darwin') return 'open';
  return env.DISPLAY || env.WAYLAND_DISPLAY ? 'xdg-open' : null;
}

/** Starts the opener on its own (it outlives this command); resolves to why it could not start, or null. */
export function openDetached(cmd: string, url: string): Promise<string | null> {
  return new Promise((resolve) => {
    const child = spawn(cmd, [url], { detached: true, stdio: 'ignore', env: process.env });
    child.once('spawn', () => {
      child.unref();
      resolve(null);
    });
    child.once('error', (err) => resolve(err.message));
  });
}
