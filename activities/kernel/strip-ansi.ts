// CSI sequences (colours, cursor moves) and OSC sequences (titles, hyperlinks).
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** IPython colours its tracebacks; the model should see plain text. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}
