import type { UiInfo } from '../state/types';

/** The trace's page from the configured template, or null when none is configured. */
export function traceLink(info: UiInfo, traceId: string): string | null {
  return info.traceUrl === null ? null : info.traceUrl.split('{traceId}').join(encodeURIComponent(traceId));
}

/** The session's workflow in the Temporal UI, or null when no Temporal UI answered. */
export function temporalLink(info: UiInfo, sessionId: string): string | null {
  return info.temporalUi === null ? null : `${info.temporalUi}/namespaces/${encodeURIComponent(info.namespace)}/workflows/${encodeURIComponent(sessionId)}`;
}

