/**
 * Turns the streamed JSON text of a tool call's arguments into an object.
 *
 * A reply cut short (finish reason `length`, a dropped connection, an abort) leaves that text
 * unfinished. Rather than drop what the model wrote, the text is closed (open string, arrays and
 * objects) and parsed again, so the partial arguments stay visible in the transcript and the session.
 */

/** Parses tool-call arguments; unfinished JSON is completed where possible; anything else gives `{}`. */
export function parseToolArguments(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed === "") return {};
  const whole = tryParseObject(trimmed);
  if (whole) return whole;
  const closed = closeUnfinishedJson(trimmed);
  return (closed !== undefined && tryParseObject(closed)) || {};
}

function tryParseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Not (yet) valid JSON: the caller decides what to try next.
  }
  return undefined;
}

/**
 * Appends the closing characters an unfinished JSON text needs. Returns undefined when the text stops
 * at a place no closing can fix (after a key, or inside an escape), so the caller falls back to `{}`.
 */
function closeUnfinishedJson(text: string): string | undefined {
  const closers: string[] = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === "\\") escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === "{") closers.push("}");
    else if (char === "[") closers.push("]");
    else if (char === "}" || char === "]") closers.pop();
  }
  if (escaped) return undefined;
  let body = inString ? `${text}"` : text;
  // A trailing separator would make the closed text invalid; a value cut mid-literal (`tru`) cannot be saved.
  body = body.replace(/[,\s]+$/, "");
  if (body.endsWith(":")) return undefined;
  // A dangling key inside an object (`{"a": 1, "b"`) has no value: drop it.
  if (closers[closers.length - 1] === "}") body = body.replace(/,\s*"(?:[^"\\]|\\.)*"$/, "").replace(/\{\s*"(?:[^"\\]|\\.)*"$/, "{");
  return body + closers.reverse().join("");
}
