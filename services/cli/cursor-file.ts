import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { parseCursor, type Cursor } from '../daemon/cursor';
import { daemonPaths } from '../daemon/paths';

/** `<home>/run/cursors/<id>.json`; a child id's `/` is encoded so every cursor is one file. */
export function cursorFile(config: RecurConfig, sessionId: string): string {
  return join(daemonPaths(config).cursors, `${encodeURIComponent(sessionId)}.json`);
}

/** The saved cursor, or an empty one (start from the beginning) when none was saved or it is unreadable. */
export function loadCursor(config: RecurConfig, sessionId: string): Cursor {
  let text: string;
  try {
    text = readFileSync(cursorFile(config, sessionId), 'utf8');
  } catch {
    return {};
  }
  const parsed = parseCursor(text);
  return parsed.ok ? parsed.cursor : {};
}

export function saveCursor(config: RecurConfig, sessionId: string, cursor: Cursor): string {
  const file = cursorFile(config, sessionId);
  mkdirSync(daemonPaths(config).cursors, { recursive: true });
  writeFileSync(file, JSON.stringify(cursor));
  return file;
}

export function clearCursor(config: RecurConfig, sessionId: string): void {
  rmSync(cursorFile(config, sessionId), { force: true });
}
