import type { RecurConfig } from '../../config';
import type { UiInfo } from './api-types';

/** How long a probe's answer stands: the page asks once per load, a stopped Temporal UI shows within this. */
const PROBE_TTL_MS = 30_000;
const PROBE_TIMEOUT_MS = 1000;

/** Whether something answers an HTTP GET at `url` within the timeout (a server error counts as down). */
export async function probeHttp(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.body?.cancel();
    return res.status < 500;
  } catch {
    return false;
  }
}

/** `GET /v1/ui/info`; the Temporal UI link only while the probe (cached, shared by concurrent requests) finds it up. */
export function createUiInfo(config: RecurConfig, probe = probeHttp, now: () => number = Date.now): () => Promise<UiInfo> {
  const base = config.ui.temporalUiUrl?.replace(/\/+$/, '') ?? null;
  let last: { at: number; up: Promise<boolean> } | undefined;
  return async () => {
    let up = false;
    if (base !== null) {
      if (last === undefined || now() - last.at >= PROBE_TTL_MS) last = { at: now(), up: probe(base) };
      up = await last.up;
    }
    return { temporalUi: up ? base : null, namespace: config.temporal.namespace, traceUrl: config.ui.traceUrl };
  };
}
