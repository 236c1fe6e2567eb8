/**
 * What an API error body says. The shapes differ per API: OpenAI and Anthropic answer
 * `{error: {type, message}}`; Azure `{error: {code, message, innererror}}`; Google
 * `{error: {code, status, message, details}}` (Vertex wraps it in an array). Anything else is
 * quoted, shortened.
 */

interface ErrorObject {
  type?: string | null;
  code?: string | number | null;
  status?: string | number;
  message?: string;
  details?: { '@type'?: string; retryDelay?: string; reason?: string }[];
  innererror?: { code?: string; content_filter_result?: Record<string, { filtered?: boolean }> };
}

export interface ErrorBody {
  /** `reason: message`, the reason being the API's own word for the class of error. */
  detail: string;
  /** The wait a Google RetryInfo detail asks for, which Google sends instead of a `retry-after` header. */
  retryAfterMs?: number;
}

export function readErrorBody(body: string): ErrorBody {
  const raw = body.trim().slice(0, 500) || '(empty body)';
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    // Not JSON (a proxy's HTML page, say): the shortened raw body is the best detail there is.
    return { detail: raw };
  }
  const root = (Array.isArray(parsed) ? parsed[0] : parsed) as { error?: ErrorObject | string; message?: unknown } | null;
  const e = root?.error;
  if (typeof e === 'string') return { detail: e };
  if (!e?.message) return { detail: typeof root?.message === 'string' ? root.message : raw };
  const reason = e.type ?? named(e.status) ?? named(e.code);
  const info = e.details?.find((d) => d['@type']?.endsWith('google.rpc.ErrorInfo'))?.reason;
  const detail = `${reason ? `${reason}: ` : ''}${e.message}${info ? ` (${info})` : ''}${filtered(e.innererror)}`;
  return { detail, retryAfterMs: retryInfoMs(e.details) };
}

/** Azure and Google also put the HTTP status in `code`/`status`; only a word says more than the status line. */
function named(value: string | number | null | undefined): string | undefined {
  return typeof value === 'string' && !/^\d+$/.test(value) ? value : undefined;
}

/** Azure's content filter names the categories that tripped it. */
function filtered(inner: ErrorObject['innererror']): string {
  const hit = Object.entries(inner?.content_filter_result ?? {}).filter(([, r]) => r?.filtered === true).map(([name]) => name);
  return hit.length > 0 ? ` (filtered: ${hit.join(', ')})` : '';
}

/** A protobuf Duration in JSON: seconds with an `s`, e.g. `"37s"` or `"1.5s"`. */
function retryInfoMs(details: ErrorObject['details']): number | undefined {
  const delay = details?.find((d) => d['@type']?.endsWith('google.rpc.RetryInfo'))?.retryDelay;
  const match = delay?.match(/^(\d+(?:\.\d+)?)s$/);
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}
