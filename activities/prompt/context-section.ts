import type { ContextFile } from '../../schemas/generated/events';

/** A workspace instruction file as one model call's prompt shows it: what ModelCalled logs, and the text. */
export interface ShownContextFile {
  file: ContextFile;
  /** The shown bytes (`file.shown`) as UTF-8 text. */
  text: string;
}

/** The instruction files a workspace may hold, in the order the prompt shows them. */
export const CONTEXT_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

function fileBlock({ file, text }: ShownContextFile): string {
  const cut = file.shown.size < file.bytes
    ? `\n[${file.path} is cut here: shown are its first ${file.shown.size} of ${file.bytes} bytes; files.read(${JSON.stringify(file.path)}) reads the rest]`
    : '';
  return `<file path=${JSON.stringify(file.path)}>\n${text}${cut}\n</file>`;
}

/**
 * The workspace's instruction files as the model sees them, after the base prompt and the harness (which
 * they never replace). Pure: the logged ContextFile refs and their blobs give the same text back.
 */
export function contextSection(files: readonly ShownContextFile[]): string {
  if (files.length === 0) return '';
  return `\n\n## Workspace instructions\n\nThe workspace's ${files.map((f) => f.file.path).join(' and ')}, as it is now (re-read before each of your turns). Follow it where it does not conflict with the instructions above.\n\n${files.map(fileBlock).join('\n\n')}`;
}
