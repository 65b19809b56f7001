/**
 * A message body as it goes into the Markdown export: still the Markdown its author wrote, but with
 * nothing that a Markdown preview would take for markup of its own or for the export's structure.
 * Raw HTML is escaped (a preview would otherwise load a message's remote images or run its markup),
 * and headings are shown as text, so that a message cannot forge the export's `## User` lines. Code
 * fences and inline code are left exactly as they are: escapes inside them would show literally.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** ATX headings (`## x`) and setext underlines (a line of `=` or `-` under text). */
const ATX = /^( {0,3})(#{1,6})(?=[ \t]|$)/;
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/** A `<` that opens a tag, a comment, a declaration or a processing instruction; autolinks stay. */
const TAG = /<(?=[A-Za-z/!?])(?!(?:https?|mailto):)/g;

/** Escapes tags on one line, outside inline code spans. */
function escapeTags(line: string): string {
  if (!line.includes("<")) return line;
  let out = "";
  let pos = 0;
  while (pos < line.length) {
    const tick = line.indexOf("`", pos);
    if (tick < 0) break;
    let run = tick;
    while (line[run] === "`") run++;
    const ticks = line.slice(tick, run);
    const close = line.indexOf(ticks, run);
    if (close < 0) break;
    out += line.slice(pos, tick).replace(TAG, "&lt;") + line.slice(tick, close + ticks.length);
    pos = close + ticks.length;
  }
  return out + line.slice(pos).replace(TAG, "&lt;");
}

/**
 * The body with raw HTML escaped and headings made plain text, code untouched. `quoted`: the body
 * goes into a block quote, where a heading cannot pass for one of the export's own: headings stay.
 */
export function escapeMessageBody(text: string, options: { quoted?: boolean } = {}): string {
  const lines = text.split("\n");
  let fence: string | undefined;
  let previousIsText = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const open = FENCE.exec(line);
    if (fence) {
      if (open && open[1]![0] === fence[0] && open[1]!.length >= fence.length && line.trim() === open[1]) fence = undefined;
      previousIsText = false;
      continue;
    }
    if (open) {
      fence = open[1]!;
      previousIsText = false;
      continue;
    }
    let out = escapeTags(line);
    if (options.quoted) {
      lines[i] = out;
      continue;
    }
    out = out.replace(ATX, "$1\\$2");
    // A line of = or - under text would make that text a heading: show it as text instead.
    if (previousIsText && SETEXT.test(out)) out = out.replace(/^( {0,3})([=-])/, "$1\\$2");
    lines[i] = out;
    previousIsText = line.trim() !== "" && !/^ {4}/.test(line);
  }
  return lines.join("\n");
}
