/**
 * What the CLI prints is made safe for a terminal. Names, descriptions, paths and summaries come
 * from folder files (config.yaml, Tools/*.yaml, history records) that anyone with a pull request
 * can write: an escape sequence in them would reach the terminal raw (recolour, retitle, hide or
 * rewrite lines, or worse on some emulators). Every control character but tab and line feed (and
 * the CR of a CRLF), the C1 controls (U+0080–U+009F, read as CSI and the like by some terminals)
 * and the bidirectional overrides (text that displays in another order than it reads) is shown as
 * a visible escape instead. JSON output is unaffected: JSON.stringify has escaped them already.
 */
const UNSAFE = /\r(?!\n)|[\0-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
}

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible);
}
