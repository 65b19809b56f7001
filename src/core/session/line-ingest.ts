import type { EntryStore } from "./entry-store";
import type { LineProblem } from "./errors";
import { FIELD_ID, FIELD_PARENT, FIELD_ROLE, FIELD_TIMESTAMP, FIELD_TYPE, fieldEquals, fieldText, LineHead, scanLine, VALUE_NULL, VALUE_OBJECT, VALUE_STRING } from "./json-scan";
import { scannedTextless } from "./textless-scan";
import { isBlank, isProblem, parseLineText, type RawLine } from "./line-parser";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "./types";

/** Roles as constants, so that a million messages share a handful of strings. */
const KNOWN_ROLES = ["user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage", "branchSummary", "compactionSummary"];

function isHeader(value: Record<string, unknown>): boolean {
  return value.type === "session" && typeof value.id === "string";
}

/**
 * Takes the lines of a session file one at a time into an index: the header first, then
 * entries. A message line that the byte-level scanner reads plainly goes in as a skeleton (its
 * body stays in the file); every other line is parsed in full, so that the result is always what
 * `JSON.parse` of every line would give.
 */
export class LineIngest {
  header: SessionHeader | undefined;
  /** The format version the file was written in (before in-memory migration). */
  fileVersion = CURRENT_SESSION_VERSION;
  /** The first line that is an entry-like object but not a header, when it comes before any header. */
  notHeader: number | undefined;
  readonly problems: LineProblem[] = [];
  /** Lines of a version-1 file (no ids yet), kept parsed for migration. */
  readonly v1Lines: RawLine[] = [];
  private readonly head = new LineHead();

  constructor(readonly store: EntryStore) {}

  /** Continues an index loaded from elsewhere (a reopen index): the header is known. */
  resume(header: SessionHeader, fileVersion: number): void {
    this.header = header;
    this.fileVersion = fileVersion;
  }

  /** Whether reading further lines can change anything (not after a non-header first line). */
  get stopped(): boolean {
    return this.header === undefined && this.notHeader !== undefined;
  }

  /**
   * One complete line: bytes [s, e) of `buf` (without the newline), line number `lineNo`, at
   * byte `fileOffset` of the file. `words` is an Int32Array over buf's ArrayBuffer, or undefined.
   */
  take(buf: Buffer, words: Int32Array | undefined, s: number, e: number, lineNo: number, fileOffset: number): void {
    if (this.header !== undefined && this.fileVersion >= 2 && scanLine(buf, words, s, e, this.head) && this.takeScanned(buf, lineNo, fileOffset, e - s)) return;
    if (isBlank(buf, s, e)) return;
    this.takeParsed(parseLineText(buf.toString("utf8", s, e), lineNo)!, lineNo, fileOffset, e - s);
  }

  /**
   * The last bytes of a file, after its last newline. Returns whether they were a complete line
   * (an entry without its newline); false when they are blank or not (yet) complete JSON.
   */
  takeFragment(text: string, lineNo: number, fileOffset: number, length: number): boolean {
    if (/^[ \t\r]*$/.test(text)) return false;
    const result = parseLineText(text, lineNo, true);
    if (result === undefined) return false;
    this.takeParsed(result, lineNo, fileOffset, length);
    return true;
  }

  private takeScanned(buf: Buffer, lineNo: number, offset: number, length: number): boolean {
    const head = this.head;
    if (head.typeKind !== VALUE_STRING || !fieldEquals(buf, head, FIELD_TYPE, "message")) return false;
    if (head.idKind !== VALUE_STRING || head.end[FIELD_ID]! === head.start[FIELD_ID]!) return false;
    let role: string | undefined;
    if (head.messageKind === VALUE_OBJECT && head.roleKind === VALUE_STRING) {
      for (const known of KNOWN_ROLES) {
        if (fieldEquals(buf, head, FIELD_ROLE, known)) {
          role = known;
          break;
        }
      }
      role ??= fieldText(buf, head, FIELD_ROLE);
      if (role === "hookMessage" && this.store.migrateOnParse) role = "custom";
    }
    // Pi's tree hides an assistant turn without text: the filters need to know it for every entry.
    let textless = false;
    if (role === "assistant") {
      const scanned = scannedTextless(buf, head);
      if (scanned === undefined) return false;
      textless = scanned;
    }
    // Most entries continue the one before: their parent is matched in the bytes, without a string.
    let parentId: string | null | undefined = null;
    if (head.parentKind === VALUE_STRING) {
      const previous = this.store.size > 0 ? this.store.idAt(this.store.size - 1) : undefined;
      parentId = previous !== undefined && fieldEquals(buf, head, FIELD_PARENT, previous) ? undefined : fieldText(buf, head, FIELD_PARENT);
    }
    const id = fieldText(buf, head, FIELD_ID);
    const timestamp = head.timestampKind === VALUE_STRING ? fieldText(buf, head, FIELD_TIMESTAMP) : "";
    const result = this.store.addSkeleton(id, parentId, role, timestamp, lineNo, offset, length, textless);
    if (typeof result !== "number") this.problems.push(result);
    return true;
  }

  private takeParsed(result: Record<string, unknown> | LineProblem, lineNo: number, offset: number, length: number): void {
    if (isProblem(result)) {
      this.problems.push(result);
      return;
    }
    const value = result;
    if (this.header === undefined) {
      if (this.notHeader !== undefined) return;
      if (!isHeader(value)) {
        this.notHeader = lineNo;
        return;
      }
      this.header = value as unknown as SessionHeader;
      this.fileVersion = typeof this.header.version === "number" ? this.header.version : 1;
      this.store.migrateOnParse = this.fileVersion < CURRENT_SESSION_VERSION;
      return;
    }
    if (value.type === "session") return;
    if (this.fileVersion < 2) {
      this.v1Lines.push({ line: lineNo, value, start: 0, end: 0 });
      return;
    }
    const added = this.store.add(value, lineNo, { offset, length });
    if (typeof added !== "number") this.problems.push(added);
  }
}

/** Exposed for tests: the value kinds the scanner reports. */
export const VALUE_KINDS = { string: VALUE_STRING, null: VALUE_NULL, object: VALUE_OBJECT };
