/**
 * The approval policy and the pure decisions over it: what an agent may do alone, what waits for
 * an operator's yes and what is refused outright. No I/O, no SDK imports: workflows decide with it
 * and unit tests run it bare. The operator sets it in config (RECUR_APPROVAL_POLICY, docs/approvals.md).
 */

export interface ApprovalPolicy {
  /** Kinds of request that wait for an operator: harness-global, spend, egress, command, or a kind a host op names. */
  require: string[];
  /** Tokens (in + out) a session tree may spend before its next model call waits for a yes; 0: no token threshold. */
  spendTokens: number;
  /** The same in US dollars; 0: no cost threshold. */
  spendCostUsd: number;
  /** Egress refused outright: `host` or `host:port` patterns, `*` matching any run of characters, case-insensitive. */
  refuseHosts: string[];
  /** Commands refused outright: patterns over the whole command line, `*` as above. */
  refuseCommands: string[];
  /**
   * CI mode (`recur run --ci`): nobody is there to answer, so a request the policy would put to an
   * operator is refused at once, by policy, and logged as such; nothing waits. Absent: false.
   */
  unattended?: boolean;
}

export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = {
  require: ['harness-global', 'spend', 'egress'],
  spendTokens: 5_000_000,
  spendCostUsd: 25,
  // Cloud metadata endpoints hand out the host's own credentials: no agent needs them.
  refuseHosts: ['169.254.169.254', '169.254.169.254:*', 'metadata.google.internal', 'metadata.google.internal:*'],
  refuseCommands: ['sudo *', 'rm -rf /', 'rm -rf /*', 'mkfs*', 'shutdown*', 'reboot*'],
};

export type ApprovalVerdict = { action: 'allow' } | { action: 'ask' } | { action: 'refuse'; reason: string };

/** `*` matches any run of characters; everything else is literal; the whole text must match. */
export function matchesPattern(pattern: string, text: string, ignoreCase = false): boolean {
  const body = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${body}$`, ignoreCase ? 'is' : 's').test(text);
}

/** What the policy says about one request: refusals first, so an outright refusal is never put to an operator. */
export function decideApproval(policy: ApprovalPolicy, kind: string, detail: string): ApprovalVerdict {
  const text = detail.trim();
  const refusedBy = kind === 'egress'
    ? policy.refuseHosts.find((p) => matchesPattern(p, text, true))
    : kind === 'command' ? policy.refuseCommands.find((p) => matchesPattern(p, text)) : undefined;
  if (refusedBy !== undefined) {
    return { action: 'refuse', reason: `${kind} "${text}" is refused outright by the approval policy (rule "${refusedBy}")` };
  }
  if (!policy.require.includes(kind)) return { action: 'allow' };
  if (policy.unattended) return { action: 'refuse', reason: `${kind} "${text}" needs an operator's yes, and in CI mode nobody is there to give it (docs/approvals.md)` };
  return { action: 'ask' };
}

export interface Spend {
  tokens: number;
  costUsd: number;
}

/**
 * Whether a session tree's spending since the last approved mark passed a threshold: the detail an
 * operator reads, or null. Each yes moves the mark to what was spent then, so the next request
 * comes one threshold later.
 */
export function decideSpend(policy: ApprovalPolicy, spent: Spend, mark: Spend): string | null {
  if (!policy.require.includes('spend')) return null;
  const tokens = policy.spendTokens > 0 && spent.tokens - mark.tokens >= policy.spendTokens;
  const cost = policy.spendCostUsd > 0 && spent.costUsd - mark.costUsd >= policy.spendCostUsd;
  if (!tokens && !cost) return null;
  return `the session tree has spent ${spent.tokens} tokens and $${spent.costUsd.toFixed(4)}; `
    + `the threshold is ${policy.spendTokens || 'no'} tokens / $${policy.spendCostUsd || 'no limit'} past the last approval `
    + `(at ${mark.tokens} tokens, $${mark.costUsd.toFixed(4)})`;
}
