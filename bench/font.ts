/**
 * A 5×7 bitmap font for chart labels. Each glyph is 7 rows, top first; each row one base-32
 * digit whose 5 bits are the columns, leftmost = 16. Upper case only; anything else is blank.
 */
const GLYPHS: Record<string, string> = {
  '0': 'ehjlphe', '1': '4c4444e', '2': 'eh1248v', '3': 'u11e11u', '4': '26aiv22', '5': 'vgu11he', '6': 'egguhhe',
  '7': 'v124888', '8': 'ehhehhe', '9': 'ehhf11e', A: 'ehhvhhh', B: 'uhhuhhu', C: 'ehggghe', D: 'uhhhhhu',
  E: 'vgguggv', F: 'vgguggg', G: 'ehgnhhf', H: 'hhhvhhh', I: 'e44444e', J: '72222ic', K: 'hikokih', L: 'ggggggv',
  M: 'hrllhhh', N: 'hhpljhh', O: 'ehhhhhe', P: 'uhhuggg', Q: 'ehhhlid', R: 'uhhukih', S: 'fgge11u', T: 'v444444',
  U: 'hhhhhhe', V: 'hhhhha4', W: 'hhhllla', X: 'hha4ahh', Y: 'hha4444', Z: 'v1248gv', '.': '00000cc', '-': '000e000',
  '/': '012480g', '%': 'pp248jj', ':': '0cc0cc0', '(': '2488842', ')': '8422248', '=': '00v0v00', ',': '0000c48',
  '+': '044v440', '_': '000000v',
};

export const GLYPH_W = 5;
export const GLYPH_H = 7;

/** Whether the pixel at column x (0-4), row y (0-6) of `ch` is lit. */
export function glyphPixel(ch: string, x: number, y: number): boolean {
  const g = GLYPHS[ch.toUpperCase()];
  return g !== undefined && ((parseInt(g[y], 32) >> (GLYPH_W - 1 - x)) & 1) === 1;
}
