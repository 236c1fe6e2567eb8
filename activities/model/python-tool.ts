/** The one tool every agent is offered, described once for both wire formats. */
export const PYTHON_TOOL = {
  name: 'python',
  description:
    "Run Python in this agent's persistent IPython kernel. Variables, imports and functions " +
    'persist between calls. Returns the cell output (stdout, stderr, result, or the error).',
  parameters: {
    type: 'object',
    properties: { code: { type: 'string', description: 'The Python source to execute.' } },
    required: ['code'],
  },
} as const;

/**
 * The code of one `python` call from its JSON arguments, or why there is none. Malformed
 * arguments are the model's mistake, not the provider's: the session shows the model the error
 * (activities/model/reply-check.ts) instead of failing the call. A bare JSON string is taken as
 * the code, as some open models send it that way.
 */
export function toolCallCode(json: string): { code: string } | { error: string } {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch (e) {
    return { error: `the arguments are not JSON (${(e as Error).message}): ${json.slice(0, 200)}` };
  }
  if (typeof args === 'string') return { code: args };
  const code = (args as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return { code };
  return { error: `the arguments have no string "code": ${json.slice(0, 200)}` };
}
