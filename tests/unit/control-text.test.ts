import { escapeControlsInJson, stripControls } from '../../activities/control-text';

/** Any control a terminal acts on: C0 but newline and tab, DEL, C1, and a carriage return not ending a line. */
const ANY_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/;

describe('stripControls: nothing in agent text drives a terminal', () => {
  test.each([
    ['OSC 52 clipboard write ended by BEL', 'a\x1b]52;c;ZWNobyBwd25lZA==\x07b', 'ab'],
    ['OSC 52 clipboard write ended by ST', 'a\x1b]52;c;ZWNobw==\x1b\\b', 'ab'],
    ['8-bit OSC (title) ended by 8-bit ST', 'a\x9d0;owned\x9cb', 'ab'],
    ['OSC 8 hyperlink around visible text', '\x1b]8;;http://x\x07link\x1b]8;;\x07 [1m plain \x1b[2K', 'link [1m plain '],
    ['CSI erase screen and cursor home', '\x1b[2J\x1b[Hclean', 'clean'],
    ['CSI colours with parameters', '\x1b[0;31mred\x1b[0m', 'red'],
    ['8-bit CSI (0x9b) erase screen', 'a\x9b2Jb', 'ab'],
    ['DCS request', 'a\x1bP1$r0m\x1b\\b', 'ab'],
    ['8-bit DCS', 'a\x90q#0;2;0;0;0\x9cb', 'ab'],
    ['APC, PM and SOS strings', 'a\x1b_apc\x1b\\b\x1b^pm\x1b\\c\x1bXsos\x1b\\d', 'abcd'],
    ['full reset (RIS)', 'a\x1bcb', 'ab'],
    ['charset switch', 'a\x1b(0b', 'ab'],
    ['bare ESC before a newline and at the end', 'a\x1b\nb\x1b', 'a\nb'],
    ['unterminated OSC: introducer gone, payload visible', 'x\x1b]52;c;QUJD', 'x52;c;QUJD'],
    ['an unterminated 8-bit OSC before a terminated one', 'a\x9dvisible\x9d0;gone\x9cb', 'avisibleb'],
    ['bell, backspace, form feed, NUL, DEL', 'a\x07\b\f\x00\x7fb', 'ab'],
    ['lone C1 controls (NEL, ST)', 'a\x85\x9cb', 'ab'],
    ['carriage return that would overwrite the line', 'rm -rf /\rls -l', 'rm -rf /ls -l'],
  ])('%s', (_what, hostile, safe) => {
    expect(stripControls(hostile)).toBe(safe);
  });

  test('keeps newlines, tabs, CRLF and non-ASCII text as they are', () => {
    const text = 'héllo\tworld\r\n✓ 名前 👍\n';
    expect(stripControls(text)).toBe(text);
  });

  test('leaves no control in any mix of sequence pieces', () => {
    // A fixed-seed generator over the pieces sequences are made of: truncated, nested and interleaved.
    const pieces = ['\x1b', '[', ']', 'P', '_', '^', 'X', '\\', '\x07', '\x9b', '\x9c', '\x9d', '\x90', '\r', '\n', '2J', '52;c;', 'a', ';', '\x00', '\x7f', 'é'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      const hostile = Array.from({ length: 1 + (next() % 24) }, () => pieces[next() % pieces.length]).join('');
      const safe = stripControls(hostile);
      expect({ hostile, safe, control: ANY_CONTROL.test(safe) }).toEqual({ hostile, safe, control: false });
    }
  });
});

describe('escapeControlsInJson: --json stays faithful and terminal-safe', () => {
  test('a JSON line parses to the same value, with no raw control left in it', () => {
    const value = { answer: 'a\x9b2J\x1b]52;c;QQ==\x07\x7f\x85b', to: 'r1/\x9d0;t\x9c', tab: '\t', crlf: '\r\n' };
    const line = escapeControlsInJson(JSON.stringify(value));
    expect(ANY_CONTROL.test(line)).toBe(false);
    expect(JSON.parse(line)).toEqual(value);
    expect(line).toContain('\\u009b2J');
  });

  test('changes nothing in JSON without raw controls', () => {
    const line = JSON.stringify({ text: 'plain ✓ "quoted" \\ back', n: 1 }, null, 2);
    expect(escapeControlsInJson(line)).toBe(line);
  });
});
