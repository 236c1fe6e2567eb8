/** How the viewer writes amounts and times. Pure. */

export const formatCost = (usd: number): string => `$${usd.toFixed(4)}`;

/** `850ms`, `12.3s`, `4m 05s`, `3h 07m`, `2d 04h`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const pad = (n: number): string => String(Math.floor(n)).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${pad((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86_400)}d ${pad((s % 86_400) / 3600)}h`;
}

/** The time since `ms` in the same units, as `… ago`. */
export const formatAge = (ms: number, now: number): string => `${formatDuration(Math.max(0, now - ms))} ago`;

/** The first line of a task, cut to `max` characters. */
export function firstLine(text: string, max = 120): string {
  const line = text.split('\n', 1)[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
