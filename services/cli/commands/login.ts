import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { LOGIN_FLOWS } from '../../../activities/model/auth/login-provider';
import { removeLogin, writeLogin, type LoginName } from '../../../activities/model/auth/login-store';
import type { DevicePrompt } from '../../../activities/model/auth/login-flow';
import { stackPaths } from '../../../config/home-paths';
import type { CommandContext } from '../command-context';

const NAMES = Object.keys(LOGIN_FLOWS) as LoginName[];
const loginName = (name: string | undefined): name is LoginName => NAMES.includes(name as LoginName);

/**
 * `recur login <provider>`: a subscription's device-code login. Prints the URL and the code,
 * waits until the code is approved in a browser (anywhere: this machine needs no browser), then
 * stores the tokens owner-only in the home. Ctrl-C stops the wait and stores nothing.
 */
export async function login(ctx: CommandContext): Promise<number> {
  const [name, ...extra] = ctx.args;
  if (!loginName(name) || extra.length > 0) throw new ExitError(2, `usage: recur login <${NAMES.join('|')}> [--json]`);
  const flow = LOGIN_FLOWS[name];
  const dir = stackPaths(loadConfig()).logins;
  const cancel = new AbortController();
  const onInterrupt = () => cancel.abort();
  process.once('SIGINT', onInterrupt);
  const onPrompt = (p: DevicePrompt) => {
    if (ctx.flags.json) ctx.out(JSON.stringify({ provider: name, ...p }));
    else ctx.err(`To log in to ${flow.title}, open ${p.verificationUrl}\nand enter the code  ${p.userCode}\nWaiting for approval (Ctrl-C cancels)…`);
  };
  try {
    const record = await flow.login({ env: process.env, onPrompt, signal: cancel.signal });
    writeLogin(dir, record);
    const expiresAt = record.expiresAt === null ? null : new Date(record.expiresAt).toISOString();
    if (ctx.flags.json) ctx.out(JSON.stringify({ provider: name, loggedIn: true, expiresAt }));
    else ctx.out(`logged in to ${flow.title}; models ${name}/<model> use it (tokens refresh as they expire)`);
    return 0;
  } catch (e) {
    if (cancel.signal.aborted) throw new ExitError(130, 'login cancelled; nothing stored');
    throw e;
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}

/** `recur logout <provider>`: deletes the stored login; sessions on its models fail at their next call. */
export async function logout(ctx: CommandContext): Promise<number> {
  const [name, ...extra] = ctx.args;
  if (!loginName(name) || extra.length > 0) throw new ExitError(2, `usage: recur logout <${NAMES.join('|')}> [--json]`);
  const removed = removeLogin(stackPaths(loadConfig()).logins, name);
  if (ctx.flags.json) ctx.out(JSON.stringify({ provider: name, removed }));
  else ctx.out(removed ? `logged out of ${LOGIN_FLOWS[name].title}` : `not logged in to ${LOGIN_FLOWS[name].title}`);
  return 0;
}
