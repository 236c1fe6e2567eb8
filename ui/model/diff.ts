import { diffLines } from 'diff';

export type LineKind = 'add' | 'del' | 'same';

export interface DiffLine {
  readonly kind: LineKind;
  readonly text: string;
}

/** A harness value (JSON text, or null when absent) laid out one field per line, so a line diff shows what changed. */
export function prettyJson(text: string | null): string {
  if (text === null) return '';
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return text.endsWith('\n') ? text : `${text}\n`;
  }
}

/** `before` → `after` as lines added, removed and kept. */
export function lineDiff(before: string, after: string): DiffLine[] {
  return diffLines(before, after).flatMap((part) => {
    const kind: LineKind = part.added ? 'add' : part.removed ? 'del' : 'same';
    const lines = part.value.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.map((text) => ({ kind, text }));
  });
}

export type UnifiedKind = 'file' | 'hunk' | 'add' | 'del' | 'ctx';

/** Each line of a unified (git) diff with what it is, for colouring. */
export function unifiedLines(diff: string): Array<{ kind: UnifiedKind; text: string }> {
  return diff.split('\n').map((text) => {
    if (/^(diff --git |index |--- |\+\+\+ |new file|deleted file|similarity |rename |old mode|new mode|Binary files)/.test(text)) return { kind: 'file', text };
    if (text.startsWith('@@')) return { kind: 'hunk', text };
    if (text.startsWith('+')) return { kind: 'add', text };
    if (text.startsWith('-')) return { kind: 'del', text };
    return { kind: 'ctx', text };
  });
}
