import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../errors';

export const forbidden = (message: string) => new HttpError(403, message, 'ForbiddenError');

/**
 * The Host a browser request came under, when it is a loopback name with the daemon's own port.
 * Anything else (a DNS name rebound to 127.0.0.1 by another site) is a 421, so that site's page
 * never gets an answer from the daemon, let alone one with the viewer's cookie.
 */
export function checkHost(req: IncomingMessage): string {
  const host = (req.headers.host ?? '').toLowerCase();
  const port = req.socket.localPort;
  const allowed = ['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${port}`);
  if (!allowed.includes(host)) {
    throw new HttpError(421, `the viewer answers only under ${allowed.join(', ')}, not Host "${host}"`, 'MisdirectedRequestError');
  }
  return host;
}

/** A 403 unless the Origin header is the daemon's own origin (`required`: also when there is none). */
export function checkOrigin(req: IncomingMessage, host: string, required: boolean): void {
  const origin = req.headers.origin;
  if (origin === undefined ? required : origin !== `http://${host}`) {
    throw forbidden(`requests from ${origin === undefined ? 'no origin' : `origin ${origin}`} are refused: only the viewer's own page (http://${host}) may use its session`);
  }
}
