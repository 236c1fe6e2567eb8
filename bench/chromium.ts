import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import type { RecurConfig } from '../config';

/**
 * Debian's Chromium through Playwright: the viewer's browser tests and its bench drive the same
 * one. `--no-sandbox` because they run as root, where Chromium refuses its own sandbox.
 */
export async function launchChromium(config: RecurConfig, extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(config.chromium)) {
    throw new Error(`no Chromium at ${config.chromium}: run \`recur setup --browser\` as root on Debian (apt-get install chromium), `
      + 'or set RECUR_CHROMIUM to a Chromium binary; the viewer\'s browser tests and bench need it');
  }
  return chromium.launch({ executablePath: config.chromium, args: ['--no-sandbox', ...extraArgs] });
}

/** A viewer link as `recur ui` prints it: a fresh one-time code, minted with the daemon token, in the fragment. */
export async function viewerLoginUrl(daemon: { url: string; token: string }): Promise<string> {
  const res = await fetch(`${daemon.url}/v1/ui/codes`, { method: 'POST', headers: { authorization: `Bearer ${daemon.token}` } });
  if (res.status !== 201) throw new Error(`POST /v1/ui/codes answered ${res.status}: ${await res.text()}`);
  const { code } = (await res.json()) as { code: string };
  return `${daemon.url}/ui/#login=${code}`;
}
