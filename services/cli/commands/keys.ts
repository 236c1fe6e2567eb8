import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { stackPaths } from '../../../config/home-paths';
import { ensureLogKey, homeKeyring, logKeyPaths, rotateLogKey } from '../../home/log-keys';
import type { CommandContext } from '../command-context';

const USAGE = 'usage: recur keys [ls] [--json] | recur keys rotate [--json]';

/**
 * `recur keys`: the event log's signing keys. `ls` lists every public key the home ever signed
 * with and marks the signer; `rotate` makes a new key the signer (workers take it at their next
 * append) and keeps the old public keys, so events already logged still verify.
 */
export async function keys(ctx: CommandContext): Promise<number> {
  const [sub = 'ls', ...extra] = ctx.args;
  if ((sub !== 'ls' && sub !== 'rotate') || extra.length > 0) throw new ExitError(2, USAGE);
  const dir = stackPaths(loadConfig()).keys;
  if (sub === 'rotate') {
    const { previous, current } = rotateLogKey(dir);
    if (ctx.flags.json) ctx.out(JSON.stringify({ previous, current }));
    else ctx.out(`signing key is now ${current}${previous ? ` (was ${previous}; its public key stays in ${logKeyPaths(dir).public})` : ''}`);
    return 0;
  }
  const signer = ensureLogKey(dir);
  const ids = [...homeKeyring(dir).keys()].sort();
  if (ctx.flags.json) ctx.out(JSON.stringify({ signer, publicKeys: ids.map((id) => ({ keyId: id, file: `${logKeyPaths(dir).public}/${id}.pem` })) }));
  else for (const id of ids) ctx.out(`${id === signer ? '*' : ' '} ${id}  ${logKeyPaths(dir).public}/${id}.pem`);
  return 0;
}
