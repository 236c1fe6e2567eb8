import { ProviderError } from '../../errors';

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
 * The code of one `python` call from its JSON arguments. Malformed arguments are a bad sample,
 * not a bad request, so the error is retryable: a fresh sample is usually well formed. A bare
 * JSON string is taken as the code, as some open models send it that way.
 */
export function codeFromToolArguments(provider: string, json: string): string {
  let args: unknown;
  try {
    args = JSON.parse(json);
  } catch {
    throw new ProviderError(provider, `python tool call arguments are not JSON: ${json.slice(0, 200)}`, undefined, {
      retryable: true,
    });
  }
  if (typeof args === 'string') return args;
  const code = (args as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  throw new ProviderError(provider, `python tool call has no string "code" argument: ${json.slice(0, 200)}`, undefined, {
    retryable: true,
  });
}
