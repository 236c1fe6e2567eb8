/** Text in a Markdown table cell: one line, pipes escaped, so agent text cannot break the table or start markup. */
export function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/([\\`*_{}[\]<>()#+!|~])/g, '\\$1');
}

/** Agent text shown verbatim: a fence longer than any backtick run inside, so nothing in it renders as Markdown or HTML. */
export function fenced(text: string, info = 'text'): string[] {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${info}`, text, fence];
}

/** A command to copy, as inline code that survives backticks in it. */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${longest > 0 ? ' ' : ''}${text.replace(/\r?\n/g, ' ')}${longest > 0 ? ' ' : ''}${ticks}`;
}

/** Inline code inside a table cell: GFM splits cells at `|` even within code, unless escaped. */
export const codeCell = (text: string): string => code(text).replace(/\|/g, '\\|');
