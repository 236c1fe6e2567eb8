import { sessionParent } from '../schemas/session-ids';
import { ENVELOPE_LIMITS } from '../schemas/field-limits';

/**
 * Who an agent may message: its parent, its siblings and its children, nobody else. Session ids
 * are hierarchical (`root/child/grandchild`), so family is a question about id prefixes.
 */
export type Recipient = { ok: true; targetId: string } | { ok: false; reason: string };

/** A name starts with a letter, so a session id segment is never mistaken for an event's seq. */
const NAME = /^[a-z][a-z0-9_-]{0,39}$/;

export function checkAgentName(name: string): string | null {
  return NAME.test(name) ? null : `invalid agent name "${name}": use 1-40 of a-z, 0-9, _ and -, starting with a letter`;
}

/** Null when a child's session id fits every event's envelope (a deep tree of long names may not). */
export function checkChildId(childId: string): string | null {
  const max = ENVELOPE_LIMITS.sessionId;
  return childId.length > max ? `the child's session id would be ${childId.length} characters, over the ${max}-character limit` : null;
}

const USAGE = 'reachable: "parent", "child:<name>", "sibling:<name>" (or their full session ids)';

/**
 * Resolves `to` for the agent `selfId`. `children` are the names of children it has spawned;
 * siblings are checked only by shape here, their existence when the message is delivered.
 */
export function resolveRecipient(selfId: string, to: string, children: readonly string[]): Recipient {
  const parent = sessionParent(selfId);
  const [kind, name] = to.includes(':') ? [to.slice(0, to.indexOf(':')), to.slice(to.indexOf(':') + 1)] : [to, ''];
  if (kind === 'parent' && !name) {
    return parent ? { ok: true, targetId: parent } : { ok: false, reason: `${selfId} is a root session and has no parent` };
  }
  if (kind === 'child') {
    return children.includes(name)
      ? { ok: true, targetId: `${selfId}/${name}` }
      : { ok: false, reason: `${selfId} has no child named "${name}"` };
  }
  if (kind === 'sibling') {
    if (!parent) return { ok: false, reason: `${selfId} is a root session and has no siblings` };
    if (checkAgentName(name) || `${parent}/${name}` === selfId) return { ok: false, reason: `"${name}" is not a sibling of ${selfId}` };
    return { ok: true, targetId: `${parent}/${name}` };
  }
  if (to === parent) return { ok: true, targetId: parent };
  if (sessionParent(to) === selfId && children.includes(to.slice(selfId.length + 1))) return { ok: true, targetId: to };
  if (parent && sessionParent(to) === parent && to !== selfId) return { ok: true, targetId: to };
  return { ok: false, reason: `"${to}" is not in ${selfId}'s family; ${USAGE}` };
}
