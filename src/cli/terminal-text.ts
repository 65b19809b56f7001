/**
 * Text from a session file is shown in a terminal, and a terminal acts on some characters instead
 * of printing them: ESC starts sequences that can set the clipboard (OSC 52), retitle the window,
 * move the cursor or clear lines (so a crafted session could forge or hide output), C1 controls
 * do the same on terminals that honour 8-bit sequences, and Unicode bidi controls reorder what is
 * shown. Human-readable output escapes all of them into visible text. JSON output (`--json`,
 * `--ndjson`, `context`) stays byte-exact when piped; on a terminal, the C1 and bidi controls that
 * JSON.stringify leaves raw are written as `\uXXXX` escapes, which parse back to the same strings.
 */

// C0 controls except newline, DEL, C1 controls, bidi marks/embeddings/overrides/isolates, line and
// paragraph separators.
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };

function visible(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Whether a character code is one UNSAFE matches (kept in step with it; a unit test compares them). */
export function isUnsafeCode(c: number): boolean {
  if (c < 0x20) return c !== 0x0a;
  if (c < 0x7f) return false;
  if (c <= 0x9f) return true;
  return c === 0x61c || c === 0x200e || c === 0x200f || c === 0x2028 || c === 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/** Escapes every character a terminal would act on, keeping newlines (for whole blocks of output). */
export function escapeTerminal(text: string): string {
  // Whole blocks are megabytes on a large session and almost never hold such a character: a plain
  // scan finds that out several times faster than the regular expression does.
  for (let i = 0; i < text.length; i++) if (isUnsafeCode(text.charCodeAt(i))) return text.replace(UNSAFE, visible);
  return text;
}

/** Escapes a single field for one line of output: newlines are escaped too, so a field cannot forge a line. */
export function oneLine(text: string): string {
  return text.replace(UNSAFE_OR_NEWLINE, visible);
}

/**
 * JSON text for a terminal: every character a terminal acts on becomes a `\uXXXX` escape. Such a
 * character can only be inside a JSON string (the rest of the text is ASCII punctuation, digits,
 * words and white space), where the escape means the same character: the JSON reads back the same.
 */
export function jsonForTerminal(json: string): string {
  for (let i = 0; i < json.length; i++) {
    if (isUnsafeCode(json.charCodeAt(i))) return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  }
  return json;
}
