import type { RecurConfig } from './schema';

const isHttpUrl = (text: string): boolean => {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
};

/** The viewer's link settings, checked at start: a bad one would only show as a dead link in the page. */
export function uiLinkErrors(config: RecurConfig): string[] {
  const { temporalUiUrl, traceUrl } = config.ui;
  const errors: string[] = [];
  if (temporalUiUrl !== null && !isHttpUrl(temporalUiUrl)) {
    errors.push(`RECUR_TEMPORAL_UI_URL (config ui.temporalUiUrl): expected an http(s) URL, got "${temporalUiUrl}"`);
  }
  if (traceUrl !== null && (!isHttpUrl(traceUrl.replaceAll('{traceId}', 'x')) || !traceUrl.includes('{traceId}'))) {
    errors.push(`RECUR_TRACE_URL (config ui.traceUrl): expected an http(s) URL containing {traceId}, e.g. http://localhost:16686/trace/{traceId}, got "${traceUrl}"`);
  }
  return errors;
}
