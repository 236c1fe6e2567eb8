import { extractFencedPython } from '../../activities/model/extract-code';

/** The single-regex parser this one replaced: the oracle for what the blocks must be. */
const OLD_FENCE = /^[ \t]*```(?:python3?|py)[ \t]*\r?\n([\s\S]*?)^[ \t]*```[ \t]*$/gim;
const oldExtract = (text: string): string | null => {
  const blocks = [...text.matchAll(OLD_FENCE)].map((m) => m[1].replace(/\r?\n$/, ''));
  return blocks.length === 0 ? null : blocks.join('\n\n');
};

/** A tiny deterministic generator, so a failure names a reproducible seed. */
function pieces(seed: number, count: number): string {
  const parts = ['```python\n', '```py \r\n', '```PYTHON3\n', '```js\n', '```', '```\n', ' ```\t\n', '\n', '\r\n', '\r', '\u2028', 'x = 1', ' ', '\t', 'py', '`'];
  let s = seed;
  let out = '';
  for (let i = 0; i < count; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    out += parts[s % parts.length];
  }
  return out;
}

describe('fenced python extraction', () => {
  test.each([
    ['no code here', null],
    ['```python\na = 1\n```', 'a = 1'],
    ['```Python3\r\na = 1\r\n```', 'a = 1'],
    ['```js\nx\n```\n```python\nb = 2\n```', 'b = 2'],
    ['```python\na\n```\ntext\n  ```py\nb\n  ```  \n', 'a\n\nb'],
    ['```python\n```', ''],
    ['cut off:\n```python\nprint(', null],
    ['```python\na\n```\n```python\ncut', 'a'],
    ['inline ```python x``` is not a block', null],
  ])('%j → %j', (text, code) => {
    expect(extractFencedPython(text)).toBe(code);
  });

  test('finds the same blocks as the old single-regex parser on 2,000 generated texts', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const text = pieces(seed, 40);
      expect([seed, extractFencedPython(text)]).toEqual([seed, oldExtract(text)]);
    }
  });

  // The old parser needed about 5 s for 400 KB of these and grows with the square of the size;
  // 4 MB would take it over eight minutes, far past jest's 5 s default timeout.
  test('4 MB of unclosed fences, or of fences each closed at the very end, are parsed in one pass', () => {
    const unclosed = '```python\nx = 1\n'.repeat(4 * 1024 * 1024 / 16);
    expect(unclosed.length).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    expect(extractFencedPython(unclosed)).toBeNull();
    expect(extractFencedPython(`${unclosed}\`\`\``)).toBe(unclosed.slice('```python\n'.length, -1));
    const openers = '```python\n'.repeat(400_000);
    expect(extractFencedPython(openers)).toBeNull();
  });
});
