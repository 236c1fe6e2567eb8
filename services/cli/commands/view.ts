import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { basename, join } from 'node:path';
import { loadConfig } from '../../../config';
import { ExitError, RecurError } from '../../../errors';
import type { UiInfo } from '../../daemon/api-types';
import { bundleRoutes } from '../../daemon/bundle-routes';
import { createDaemonServer } from '../../daemon/http-server';
import { defaultUiDir } from '../../daemon/static-files';
import { createUiAuth } from '../../daemon/ui-auth';
import { readPublicKeyFile } from '../../home/log-keys';
import { readBundle } from '../../projector/bundle/bundle-format';
import { bundleKeys, bundleViewerDeps, bundleViewInfo } from '../../projector/bundle/bundle-view';
import type { CommandContext } from '../command-context';
import { openDetached, urlOpener } from '../open-url';

const USAGE = 'usage: recur view BUNDLE [--pubkey FILE]... [--port N] [--no-open]';

function portOf(flag: string | boolean | undefined): number {
  if (flag === undefined) return 0;
  const port = typeof flag === 'string' && /^\d{1,5}$/.test(flag) ? Number(flag) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new ExitError(2, `--port takes 0..65535 (0: any free port), got ${String(flag)}\n${USAGE}`);
  return port;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(new RecurError(`cannot listen on 127.0.0.1:${port}: ${err.message}`, { hint: 'pass another --port, or none for any free one' })));
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

const untilStopped = (): Promise<NodeJS.Signals> => new Promise((resolve) => {
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig));
});

/**
 * `recur view BUNDLE`: the audit viewer over one bundle, served on loopback with no stack and no
 * home (docs/viewer.md "Viewing an audit bundle"). The daemon's own HTTP front and viewer routes
 * serve it, reading the bundle instead of Kafka; only a one-time link's cookie can read, as with
 * `recur ui`. Runs until Ctrl-C.
 */
export async function view(ctx: CommandContext): Promise<number> {
  const [file, ...extra] = ctx.args;
  if (!file || extra.length > 0) throw new ExitError(2, USAGE);
  const port = portOf(ctx.flags.port);
  const dir = defaultUiDir();
  if (!existsSync(join(dir, 'index.html'))) throw new RecurError('the viewer is not built', { hint: 'run npm run build in the Recur checkout' });
  const given = ((ctx.flags.pubkey as unknown as string[] | undefined) ?? []).map(readPublicKeyFile);
  const bundle = readBundle(file);
  const keys = bundleKeys(file, bundle, given);
  const auth = createUiAuth(loadConfig().ui);
  const info: UiInfo = { temporalUi: null, namespace: 'default', traceUrl: null, bundle: bundleViewInfo(basename(file), bundle, keys, null) };
  const { server } = createDaemonServer({
    // Nobody is given it: only the link's cookie reads, and nothing here writes.
    token: randomBytes(32).toString('hex'),
    handle: bundleRoutes(bundleViewerDeps(bundle, keys)),
    // A bundle never grows, so the page opens no event stream over one; an upgrade that comes anyway ends at once.
    stream: async () => undefined,
    viewer: { dir, auth, info: async () => info },
    log: ctx.err,
  });
  const bound = await listen(server, port);
  const { code, expiresAt } = auth.mintCode();
  const url = `http://127.0.0.1:${bound}/ui/#login=${code}`;
  const opener = ctx.flags['no-open'] ? null : urlOpener();
  if (opener !== null) {
    const failed = await openDetached(opener, url);
    if (failed !== null) ctx.err(`could not start ${opener} (${failed}); open the link below yourself`);
  }
  const ids = info.bundle!.keys.fingerprints.map((f) => f.keyId).join(', ') || 'none';
  ctx.out(`viewing ${file}: tree ${bundle.manifest.treeId}, ${bundle.records.length} records, exported ${bundle.manifest.exportedAt}`);
  ctx.out(keys.source === 'given'
    ? `signatures are checked against the public key(s) given with --pubkey (${ids})`
    : `signatures are checked only against the bundle's own public key(s) (${ids}): that proves only that the bundle is self-consistent; pass --pubkey with a key you trust`);
  ctx.out(`Ctrl-C stops the viewer; this link signs one browser in, once, until ${expiresAt}`);
  ctx.out(url);
  await untilStopped();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  return 0;
}
