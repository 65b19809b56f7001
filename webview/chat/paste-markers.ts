/**
 * Large pastes, as Pi's editor keeps them: a paste of more than 10 lines or 1,000 characters goes
 * into the input as a marker ("[paste #1 +42 lines]", or "[paste #2 1500 chars]" for a long single
 * line) and is sent in full in its place. Pure: no DOM.
 */

/** More lines than this is a large paste (Pi's threshold). */
export const PASTE_LINE_THRESHOLD = 10;
/** More characters than this is a large paste (Pi's threshold). */
export const PASTE_CHAR_THRESHOLD = 1000;

/** Pastes kept for markers still in the input or in its history (oldest dropped first). */
const KEPT_PASTES = 50;

/** Line ends as "\n", tabs as four spaces, other control characters dropped (as Pi cleans a paste). */
export function cleanPaste(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\t/g, "    ")
    .replace(/[\u0000-\u0009\u000b-\u001f]/g, "");
}

/** The marker text for paste `id`, or undefined when `text` is not a large paste. */
export function pasteMarker(id: number, text: string): string | undefined {
  const lines = text.split("\n").length;
  if (lines > PASTE_LINE_THRESHOLD) return `[paste #${id} +${lines} lines]`;
  if (text.length > PASTE_CHAR_THRESHOLD) return `[paste #${id} ${text.length} chars]`;
  return undefined;
}

/** The pastes the markers of one input stand for. */
export class PasteStore {
  private readonly pastes = new Map<number, string>();
  private counter = 0;

  /** The marker to insert for a paste, remembering its text; undefined for a paste that goes in as it is. */
  add(text: string): string | undefined {
    const id = this.counter + 1;
    const marker = pasteMarker(id, text);
    if (marker === undefined) return undefined;
    this.counter = id;
    this.pastes.set(id, text);
    while (this.pastes.size > KEPT_PASTES) this.pastes.delete(this.pastes.keys().next().value!);
    return marker;
  }

  /** The text with every marker of a known paste replaced by what was pasted (unknown ones stay as typed). */
  expand(text: string): string {
    if (this.pastes.size === 0 || !text.includes("[paste #")) return text;
    return text.replace(/\[paste #(\d+)(?: (?:\+\d+ lines|\d+ chars))?\]/g, (marker, id: string) => this.pastes.get(Number(id)) ?? marker);
  }

  get size(): number {
    return this.pastes.size;
  }
}
