/**
 * Fenced ```python blocks (also ```py and ```python3), closed by a ``` line of their own. An
 * unclosed fence (a reply cut off by max_tokens) is not code: running half a cell is worse than
 * running none.
 *
 * One pass over the lines, so hostile text costs linear time: a single regex over the whole
 * text backtracked from every unclosed fence to the end (400 KB of them took seconds).
 */
const OPEN = /[ \t]*```(?:python3?|py)[ \t]*\r?\n/iy;
const CLOSE = /[ \t]*```[ \t]*(?=[\n\r\u2028\u2029]|$)/y;
const LINE_BREAK = /[\n\r\u2028\u2029]/g;

/** Where the line after the one holding `from` starts, or -1 on the last line. */
function nextLineStart(text: string, from: number): number {
  LINE_BREAK.lastIndex = from;
  const m = LINE_BREAK.exec(text);
  return m ? m.index + 1 : -1;
}

function matchesAt(re: RegExp, text: string, at: number): number {
  re.lastIndex = at;
  return re.test(text) ? re.lastIndex : -1;
}

/**
 * The closed fenced Python blocks of `text` in order; whether a block was opened and never closed
 * (`unclosed`); and whether text other than blank lines follows the last closed block (`after`).
 */
export function scanFences(text: string): { blocks: string[]; unclosed: boolean; after: boolean } {
  const blocks: string[] = [];
  let body = -1; // start of the open block's body; -1 while looking for an opening fence
  let end = 0; // where the text after the last closed block starts
  for (let line = 0; line >= 0; line = nextLineStart(text, line)) {
    if (body < 0) body = matchesAt(OPEN, text, line);
    else if (matchesAt(CLOSE, text, line) >= 0) {
      blocks.push(text.slice(body, line).replace(/\r?\n$/, ''));
      body = -1;
      end = matchesAt(CLOSE, text, line);
    }
  }
  return { blocks, unclosed: body >= 0, after: blocks.length > 0 && text.slice(end).trim() !== '' };
}

/** The fenced Python blocks of `text` joined by a blank line, or null when there are none. */
export function extractFencedPython(text: string): string | null {
  const { blocks } = scanFences(text);
  return blocks.length === 0 ? null : blocks.join('\n\n');
}

/** How a native call's code is shown to a model that is offered no tools. */
export function fencePython(code: string): string {
  return '```python\n' + code + '\n```';
}
