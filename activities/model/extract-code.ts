/**
 * Fenced ```python blocks (also ```py and ```python3), closed by a ``` line of their own. An
 * unclosed fence (a reply cut off by max_tokens) is not code: running half a cell is worse than
 * running none.
 */
const FENCE = /^[ \t]*```(?:python3?|py)[ \t]*\r?\n([\s\S]*?)^[ \t]*```[ \t]*$/gim;

/** The fenced Python blocks of `text` joined by a blank line, or null when there are none. */
export function extractFencedPython(text: string): string | null {
  const blocks = [...text.matchAll(FENCE)].map((m) => m[1].replace(/\r?\n$/, ''));
  return blocks.length === 0 ? null : blocks.join('\n\n');
}

/** How a native call's code is shown to a model that is offered no tools. */
export function fencePython(code: string): string {
  return '```python\n' + code + '\n```';
}
