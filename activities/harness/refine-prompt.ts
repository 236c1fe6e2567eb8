import type { StoredEvent } from '../../schemas';
import type { HarnessEntry, ProposedEdit } from '../../workflows/harness/harness-types';
import type { ChatMessage } from '../model/types';

/** The refiner sees at most this much of the trajectory, newest last. */
const TRAJECTORY_CHARS = 80_000;

export const REFINER_SYSTEM_PROMPT = `You review an agent's trajectory and improve the harness it runs in: its prompt notes (kind "prompt"), named sub-agent specs ("subagent": {instructions, model, maxTurns}), Python skills ("skill": {description, api, files: {"__init__.py": code}}) and memory notes ("memory": {text}).

Propose the smallest set of edits that would have avoided a problem recorded in the trajectory. Prefer no edit to a speculative one. The base system prompt is not part of the harness and cannot be edited. Cite the event ids (shown as [id]) that are your evidence.

Reply with one JSON object and nothing else:
{"summary": "...", "evidence": ["<event id>", ...], "edits": [{"action": "create|update|delete", "kind": "prompt|subagent|skill|memory", "name": "snake_case_name", "value": {...}, "reason": "..."}]}`;

export interface RefineProposal {
  summary: string;
  evidence: string[];
  edits: ProposedEdit[];
}

/** One line per event the agent saw or did, prefixed with its id so the refiner can cite it. */
function trajectoryLine(e: StoredEvent): string | null {
  const ev = e.event;
  switch (ev.type) {
    case 'SessionStarted':
      return `task: ${ev.task}`;
    case 'ModelCalled': {
      const call = ev.toolCalls.find((t) => t.name === 'python');
      return `assistant: ${ev.response}${call ? `\n${(JSON.parse(call.arguments) as { code: string }).code}` : ''}`;
    }
    case 'CellExecuted':
      return `cell ${ev.status}: ${ev.outputs}${ev.status === 'error' ? `\n${ev.errorName}: ${ev.errorValue}` : ''}`;
    case 'MessageDelivered':
      return `message from ${ev.from}: ${ev.text}`;
    case 'SessionFailed':
      return `session failed (${ev.kind}): ${ev.reason}`;
    case 'SessionCompleted':
      return `final answer: ${ev.answer}`;
    default:
      return null;
  }
}

/** The refiner's conversation: the trajectory (with event ids), the current harness, the instructions. */
export function refinerMessages(events: readonly StoredEvent[], harness: readonly HarnessEntry[], instructions: string): ChatMessage[] {
  const lines = events.flatMap((e) => {
    const line = trajectoryLine(e);
    return line === null ? [] : [`[${e.eventId}] ${line}`];
  });
  let trajectory = lines.join('\n\n');
  if (trajectory.length > TRAJECTORY_CHARS) trajectory = `[…earlier turns omitted…]\n${trajectory.slice(-TRAJECTORY_CHARS)}`;
  const overview = harness.length === 0 ? '(empty)' : harness.map((e) => `- ${e.kind} ${e.name}: ${JSON.stringify(e.value).slice(0, 240)}`).join('\n');
  const content = [
    `<trajectory session="${events[0]?.sessionId ?? '?'}">\n${trajectory}\n</trajectory>`,
    `<harness>\n${overview}\n</harness>`,
    `<instructions>\n${instructions || 'Find the most costly problem and propose the smallest fix, or no edit.'}\n</instructions>`,
  ].join('\n\n');
  return [{ role: 'user', content }];
}

/** Reads the refiner's JSON (a fenced block or prose around it is tolerated); throws a clear error otherwise. */
export function parseRefineReply(text: string): RefineProposal {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new SyntaxError(`the refiner's reply holds no JSON object: ${text.slice(0, 200)}`);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
  } catch (e) {
    throw new SyntaxError(`the refiner's reply is not valid JSON (${(e as Error).message}): ${text.slice(0, 200)}`);
  }
  const edits = Array.isArray(json.edits) ? json.edits : [];
  return {
    summary: typeof json.summary === 'string' ? json.summary : '',
    evidence: Array.isArray(json.evidence) ? json.evidence.filter((x): x is string => typeof x === 'string') : [],
    edits: edits.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null).map((e) => ({
      action: String(e.action) as ProposedEdit['action'],
      kind: String(e.kind),
      name: String(e.name),
      value: e.value,
      reason: typeof e.reason === 'string' ? e.reason : undefined,
    })),
  };
}
