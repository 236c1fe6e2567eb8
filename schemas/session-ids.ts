/**
 * Session ids are paths: `root`, `root/child`, `root/child/grandchild`. A session's parent, root
 * and family follow from its id alone, which keeps family-scope checks and tree reads trivial.
 */
export const SESSION_SEPARATOR = '/';

/**
 * A harness scope's workflow and log id is `harness:<rootId>` (or `harness:<global name>`): never
 * a `/`, so a scope's log never falls inside a session tree's id range.
 */
export const HARNESS_PREFIX = 'harness:';

export function isValidSessionId(id: string): boolean {
  return id.length > 0 && id.split(SESSION_SEPARATOR).every((segment) => segment.length > 0 && segment.trim() === segment);
}

export function sessionRoot(id: string): string {
  const at = id.indexOf(SESSION_SEPARATOR);
  return at < 0 ? id : id.slice(0, at);
}

export function sessionParent(id: string): string | null {
  const at = id.lastIndexOf(SESSION_SEPARATOR);
  return at < 0 ? null : id.slice(0, at);
}

/** True for `tree` itself and every session below it. */
export function isInSessionTree(id: string, tree: string): boolean {
  return id === tree || id.startsWith(tree + SESSION_SEPARATOR);
}

export function eventIdOf(sessionId: string, seq: number): string {
  return `${sessionId}${SESSION_SEPARATOR}${seq}`;
}
