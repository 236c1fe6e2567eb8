import type { ServerResponse } from 'node:http';

/**
 * Sent with every response, API replies included: the viewer runs only its own bundled script and
 * style, talks only to this origin, and no other site may frame, embed or read what it serves.
 * There are no Access-Control-* headers: no other origin may call the API from a browser.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
}

/** The same headers as raw `name: value` lines, for responses written to an upgrade's socket. */
export const securityHeaderLines = (): string[] => Object.entries(SECURITY_HEADERS).map(([name, value]) => `${name}: ${value}`);
