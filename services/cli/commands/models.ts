import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../../config';
import { PROVIDERS, needsOf, type Need, type ProviderName } from '../../../activities/model/providers';
import { readLogin } from '../../../activities/model/auth/login-store';
import { SMOLLM2 } from '../../../activities/model/local-models';
import { stackPaths } from '../../../config/home-paths';
import type { CommandContext } from '../command-context';

interface NeedStatus {
  /** What is needed, as the user would set it: a variable, a login command, a file. */
  what: string;
  met: boolean;
  /** Why it is not met, or what is known about it when it is (a login's expiry). */
  detail: string;
}

interface ProviderRow {
  provider: string;
  spec: string;
  wire: string;
  baseUrl: string;
  needs: NeedStatus[];
  configured: boolean;
}

/**
 * `recur models`: every provider, its spec form, what it needs and whether that is in place for
 * this shell (variables as this process sees them, logins and files in this home). It says
 * nothing about whether a server answers: a local one must still be running.
 */
export async function models(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  const here = { env: process.env, home: config.home, loginsDir: stackPaths(config).logins };
  const rows: ProviderRow[] = (Object.keys(PROVIDERS) as ProviderName[]).map((name) => {
    const preset = PROVIDERS[name];
    const needs = needsOf(preset).map((n) => checkNeed(n, here));
    return { provider: name, spec: `${name}/<model>`, wire: preset.wire, baseUrl: process.env[preset.baseUrlEnv] || preset.baseUrl, needs, configured: needs.every((n) => n.met) };
  });
  const dirs = config.agent.scriptedDirs;
  rows.push({
    provider: 'scripted', spec: 'scripted:<file.json>', wire: 'scripted', baseUrl: '',
    needs: [{ what: 'a script under RECUR_SCRIPTED_DIRS', met: dirs.length > 0, detail: dirs.join(', ') || 'none set: every script is refused' }],
    configured: dirs.length > 0,
  });
  // local/smollm2 is what `recur setup` installs; other GGUFs are named from RECUR_LOCAL_MODELS_DIR.
  const pinned = checkNeed({ file: join(stackPaths(config).localModels, SMOLLM2.file), hint: 'run recur setup' }, here);
  const others = config.local.modelsDir;
  rows.push({
    provider: 'local', spec: 'local/<name>', wire: 'local', baseUrl: '',
    needs: [{ ...pinned, what: `local/${SMOLLM2.name}: ${pinned.what}` }, { what: 'RECUR_LOCAL_MODELS_DIR for other GGUFs', met: others !== null, detail: others ?? 'not set' }],
    configured: pinned.met || others !== null,
  });
  if (ctx.flags.json) {
    ctx.out(JSON.stringify({ providers: rows }));
    return 0;
  }
  const width = (f: (r: ProviderRow) => string) => Math.max(...rows.map((r) => f(r).length));
  const [p, s] = [width((r) => r.provider), width((r) => r.spec)];
  for (const r of rows) {
    const needs = r.needs.length === 0 ? `nothing${r.baseUrl ? ` (a server at ${r.baseUrl})` : ''}` : r.needs.map((n) => `${n.what}${n.detail ? ` (${n.detail})` : ''}`).join('; ');
    ctx.out(`${r.configured ? '✓' : '✗'} ${r.provider.padEnd(p)}  ${r.spec.padEnd(s)}  ${needs}`);
  }
  return 0;
}

/** Whether one need holds here; exported for the kinds no preset of this build uses yet. */
export function checkNeed(need: Need, here: { env: NodeJS.ProcessEnv; home: string; loginsDir: string }): NeedStatus {
  if ('env' in need) {
    const set = need.env.filter((v) => here.env[v]);
    const what = need.env.length === 1 ? need.env[0] : `one of ${need.env.join(', ')}`;
    return { what, met: set.length > 0, detail: set.length === 0 ? 'not set' : need.env.length === 1 ? 'set' : `${set[0]} set` };
  }
  if ('login' in need) {
    const what = `recur login ${need.login}`;
    try {
      const record = readLogin(here.loginsDir, need.login);
      if (!record) return { what, met: false, detail: 'not logged in' };
      if (record.rejected) return { what, met: false, detail: `refused: ${record.rejected}; log in again` };
      const expiry = record.expiresAt === null ? 'refreshed on a 401' : `access token ${record.expiresAt > Date.now() ? 'expires' : 'expired'} ${new Date(record.expiresAt).toISOString()}, refreshed on use`;
      return { what, met: true, detail: `logged in; ${expiry}` };
    } catch (e) {
      return { what, met: false, detail: `unreadable: ${(e as Error).message}` };
    }
  }
  // Relative to the home unless absolute (the tools directory may lie elsewhere).
  const met = existsSync(resolve(here.home, need.file));
  return { what: need.file, met, detail: met ? 'installed' : need.hint };
}
