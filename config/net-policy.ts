/**
 * A session's outbound network policy (`RECUR_SANDBOX_NET`, `recur run --net`), as text and
 * parsed. Kernels never have a route out; what the policy allows they reach through the
 * host's egress proxy (services/sandbox/egress-proxy.ts), which logs every connection.
 *
 *   none                          nothing (the default)
 *   allow:HOST[:PORT],…           those hosts (any port when none is given)
 *   full                          any public address; never loopback, private or link-local ones
 */
export type NetPolicy =
  | { kind: 'none' }
  | { kind: 'full' }
  | { kind: 'allow'; entries: ReadonlyArray<{ host: string; port: number | null }> };

const HOST = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function parseNetPolicy(text: string): NetPolicy | { error: string } {
  const v = text.trim().toLowerCase();
  if (v === 'none' || v === 'full') return { kind: v };
  if (!v.startsWith('allow:')) return { error: `expected none, full or allow:HOST[:PORT],…, got "${text}"` };
  const entries: Array<{ host: string; port: number | null }> = [];
  for (const item of v.slice('allow:'.length).split(',')) {
    const m = /^([^:]+)(?::(\d{1,5}))?$/.exec(item.trim());
    const port = m?.[2] === undefined ? null : Number(m[2]);
    if (!m || !HOST.test(m[1]) || (port !== null && (port < 1 || port > 65535))) {
      return { error: `"${item.trim()}" in "${text}" is not HOST or HOST:PORT (a host name or IPv4 address, a port 1-65535)` };
    }
    entries.push({ host: m[1], port });
  }
  return { kind: 'allow', entries };
}

/** Whether the policy names this destination itself (an allow entry), or lets any public one through (full). */
export function netAllows(policy: NetPolicy, host: string, port: number): 'listed' | 'public' | false {
  if (policy.kind === 'full') return 'public';
  if (policy.kind === 'none') return false;
  const h = host.toLowerCase();
  return policy.entries.some((e) => e.host === h && (e.port === null || e.port === port)) ? 'listed' : false;
}
