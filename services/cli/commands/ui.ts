import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { UiCodeReply } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { connectDaemon } from '../daemon-client';
import { openDetached, urlOpener } from '../open-url';

/**
 * Prints (last) a link that signs a browser in to the audit viewer once. The code rides in the
 * fragment, which browsers never send: it reaches the daemon only in the page's login request.
 */
export async function ui(ctx: CommandContext): Promise<number> {
  if (typeof ctx.flags.bundle === 'string') return (await import('./view')).view({ ...ctx, args: [ctx.flags.bundle, ...ctx.args] });
  if (ctx.args.length > 0 || ctx.flags.pubkey !== undefined || ctx.flags.port !== undefined) throw new ExitError(2, 'usage: recur ui [--no-open] | recur ui --bundle BUNDLE [--pubkey FILE]... [--port N] [--no-open]');
  const daemon = connectDaemon(loadConfig());
  const { code, expiresAt } = await daemon.post<UiCodeReply>('/v1/ui/codes', {});
  const url = `${daemon.url}/ui/#login=${code}`;
  const opener = ctx.flags['no-open'] ? null : urlOpener();
  if (opener !== null) {
    const failed = await openDetached(opener, url);
    if (failed !== null) ctx.err(`could not start ${opener} (${failed}); open the link below yourself`);
  }
  ctx.out(`the audit viewer: this link signs one browser in, once, until ${expiresAt}`);
  ctx.out(url);
  return 0;
}
