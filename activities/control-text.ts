/*
 * Control sequences in text that came from an agent, a kernel or the log. One grammar serves the
 * kernel (plain tracebacks for the model) and the CLI (nothing an agent writes may drive the
 * operator's terminal: no clipboard write, screen erase, title change or hidden text). Pure: no
 * Node modules, so any layer can use it.
 */

/**
 * Whole sequences, 7-bit (ESC …) and 8-bit (C1) forms (ECMA-48): the strings OSC, DCS, SOS, PM
 * and APC up to their terminator (BEL or ST), CSI up to its final byte, then any other escape
 * (charset, RIS `ESC c`, keypad modes). An unterminated string loses only its introducer: its
 * payload stays visible as plain text, never hidden from the operator. A string's body stops at
 * the next introducer, so each character is scanned a bounded number of times: linear time, even
 * for a flood of unterminated 8-bit introducers.
 */
const SEQUENCE = new RegExp(
  [
    '(?:\\x1b[\\]PX^_]|[\\x90\\x98\\x9d-\\x9f])[^\\x07\\x1b\\x90\\x98\\x9c-\\x9f]*(?:\\x07|\\x1b\\\\|\\x9c)',
    '(?:\\x1b\\[|\\x9b)[0-?]*[ -/]*[@-~]',
    '\\x1b[ -/]*[0-~]',
  ].join('|'),
  'g',
);

/**
 * Every control left: C0 but newline and tab, DEL, C1, and a carriage return not ending a line
 * (a bare `\r` would let text overwrite what was printed before it on the same line).
 */
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)/g;

/**
 * The text with every control sequence and control character removed; newline, tab and `\r\n`
 * stay. What is left holds no control at all, so it cannot start a sequence on any terminal.
 */
export function stripControls(text: string): string {
  return text.replace(SEQUENCE, '').replace(CONTROL, '');
}

/** Controls JSON.stringify leaves raw (DEL and C1); C0 it escapes itself. */
const RAW_IN_JSON = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * A JSON text with each remaining control written as a `\u00XX` escape. JSON.stringify never
 * emits one outside a string, so the line parses to exactly the same value (machine output stays
 * faithful) and a terminal showing it sees no control.
 */
export function escapeControlsInJson(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
