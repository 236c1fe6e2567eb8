import type { RecurConfig } from '../../config';

/** One process of the embedded stack: how to launch it and how to tell it is healthy. */
export interface ServiceDef {
  name: string;
  /** Ports it binds, checked before start so a taken port fails with a clear message. */
  ports(config: RecurConfig): Array<{ setting: string; port: number }>;
  url(config: RecurConfig): string;
  /** Seconds to wait for health after launch before giving up. */
  startTimeoutSeconds: number;
  /** Work before launch (formatting, config files); returns the command to run. */
  prepare(config: RecurConfig): LaunchSpec | Promise<LaunchSpec>;
  /** One quick health probe; never throws. */
  healthy(config: RecurConfig): Promise<boolean>;
}

export interface LaunchSpec {
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Appears in the process's command line; tells our process from a reused pid. */
  marker: string;
}

/** The environment every stack process gets: nothing from the caller but the basics, so no secret leaks in. */
export function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const keep = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'USER'];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return { ...env, ...extra };
}

export interface ServiceStatus {
  name: string;
  /** The host it belongs to (docs/hosts.md): `local` for what `recur up` runs. */
  host: string;
  pid: number | null;
  url: string;
  healthy: boolean;
}

