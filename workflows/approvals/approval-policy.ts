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
   * CI mode's answer, per kind, to a request the policy would put to an operator (docs/approvals.md):
   * `deny` refuses it and the run goes on, `end` refuses it and ends the run, `wait` waits for an
   * operator for at most `ciWaitSeconds`, then refuses it. A kind not named is denied.
   */
  ci: Record<string, CiAnswer>;
  /** How long a `wait` kind waits in CI mode; required (above 0) once any kind waits. */
  ciWaitSeconds: number;
  /** CI mode (`recur run --ci`): nobody is there to answer unless `ci` says to wait. Absent: false. */
  unattended?: boolean;
}

export const CI_ANSWERS = ['deny', 'end', 'wait'] as const;
export type CiAnswer = (typeof CI_ANSWERS)[number];

export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = {
  require: ['harness-global', 'spend', 'egress'],
  spendTokens: 5_000_000,
  spendCostUsd: 25,
  // Cloud metadata endpoints hand out the host's own credentials: no agent needs them.
  refuseHosts: ['169.254.169.254', '169.254.169.254:*', 'metadata.google.internal', 'metadata.google.internal:*'],
  refuseCommands: ['sudo *', 'rm -rf /', 'rm -rf /*', 'mkfs*', 'shutdown*', 'reboot*'],
  // Spending on, or a CI workflow changed, is no run to hand a reviewer: both end it.
  ci: { spend: 'end', 'sensitive-path': 'end' },
  ciWaitSeconds: 0,
};

/**
 * `ask`: put to an operator, for at most `waitSeconds` when set. `refuse`: logged as refused by
 * policy; with `ends` the run ends there (the session fails as `approval_refused`).
 */
export type ApprovalVerdict =
  | { action: 'allow' }
  | { action: 'ask'; waitSeconds?: number }
  | { action: 'refuse'; reason: string; ends?: boolean };

/** The policy's CI answer for a kind: its `ci` entry, else `deny`. */
export const ciAnswer = (policy: ApprovalPolicy, kind: string): CiAnswer => (Object.hasOwn(policy.ci ?? {}, kind) ? policy.ci[kind] : 'deny');

/** What is wrong with a policy's CI answers, in words for a config error; empty when nothing is. */
export function ciPolicyErrors(policy: ApprovalPolicy): string[] {
  const errors = Object.entries(policy.ci ?? {})
    .filter(([, a]) => !(CI_ANSWERS as readonly string[]).includes(a))
    .map(([kind, a]) => `approvals.ci.${kind}: ${JSON.stringify(a)} is not one of ${CI_ANSWERS.join(', ')}`);
  const waits = Object.keys(policy.ci ?? {}).filter((k) => policy.ci[k] === 'wait');
  if (waits.length > 0 && !(policy.ciWaitSeconds > 0)) {
    errors.push(`approvals.ci: ${waits.join(', ')} wait(s) for an operator in CI mode, so approvals.ciWaitSeconds must say how long (above 0)`);
  }
  return errors;
}

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
  if (!policy.unattended) return { action: 'ask' };
  const answer = ciAnswer(policy, kind);
  if (answer === 'wait') return { action: 'ask', waitSeconds: policy.ciWaitSeconds };
  const why = `${kind} "${text}" needs an operator's yes, and in CI mode nobody is there to give it`;
  return answer === 'end'
    ? { action: 'refuse', reason: `${why}: the policy ends the run (approvals.ci.${kind} is "end", docs/approvals.md)`, ends: true }
    : { action: 'refuse', reason: `${why}: the policy denies it and the run goes on (docs/approvals.md)` };
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
