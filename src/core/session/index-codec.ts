import { createHash } from "node:crypto";
import * as zlib from "node:zlib";
import type { StoreColumns } from "./entry-store";
import type { LineProblem } from "./errors";
import { runSteps, STEP_EVERY, type Steps } from "../util/steps";
import { TextLines } from "./text-lines";
import type { SessionHeader } from "./types";

/** Bump when the layout or the meaning of an index changes: older indexes are then rebuilt. */
export const INDEX_FORMAT = 3;
const MAGIC = Buffer.from("ARBORIX1", "latin1");
const HASH_BYTES = 20;
/** Ids decoded and split between two yields of a stepped decode. */
const IDS_PER_PIECE = 8192;
/** Bytes checked between two yields of a stepped decode. */
const CHECK_SLICE = 4 * 1024 * 1024;

/**
 * The check at the end of an index (it catches a torn or garbled file, not an attacker: the cache
 * is the user's own): CRC-32 where Node has it (from 20.15), about 20 times faster than SHA-1 on a
 * 60 MB index; SHA-1 otherwise. An index checked the other way is simply rebuilt. Computed over
 * slices of CHECK_SLICE bytes, a yield after each.
 */
function* checksumSteps(bytes: Buffer): Steps<Buffer> {
  const crc32 = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
  const hash = crc32 ? undefined : createHash("sha1");
  let crc = 0;
  for (let at = 0; at < bytes.length; at += CHECK_SLICE) {
    const slice = bytes.subarray(at, Math.min(bytes.length, at + CHECK_SLICE));
    if (crc32) crc = crc32(slice, crc);
    else hash!.update(slice);
    yield;
  }
  if (hash) return hash.digest();
  const out = Buffer.alloc(HASH_BYTES);
  out.write("crc32", 0, "latin1");
  out.writeUInt32LE(crc, HASH_BYTES - 4);
  return out;
}

/** What identifies the bytes an index was made from. */
export interface IndexKey {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** sha1 of the last (up to) 4 KB of the indexed bytes. */
  tailHash: string;
}

/** The saved index of one session file. */
export interface SessionIndexData {
  key: IndexKey;
  header: SessionHeader;
  fileVersion: number;
  /** Bytes that were complete lines, and their count: where reading growth resumes. */
  offset: number;
  lineCount: number;
  unterminated: boolean;
  problems: LineProblem[];
  columns: StoreColumns;
}

/** The index's JSON part: the data besides the columns, and how the columns are laid out. */
interface Meta extends Omit<SessionIndexData, "columns"> {
  format: number;
  count: number;
  typeNames: string[];
  roleNames: (string | null)[];
  parentIds: [number, string][];
  labels: [string, { label: string; timestamp: string }][];
  name: string | null;
  migrateOnParse: boolean;
  assistants: number;
  duplicates: number;
  /** Strings as one JSON array (when some id or timestamp holds a newline) instead of newline-separated. */
  stringsJson: boolean;
  stringBytes: number;
}

function* codes<T>(values: readonly T[], names: T[]): Steps<Uint8Array | undefined> {
  const table = new Map<T, number>();
  const out = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    let code = table.get(v);
    if (code === undefined) {
      if (names.length === 255) return undefined;
      code = names.length;
      names.push(v);
      table.set(v, code);
    }
    out[i] = code;
    if ((i + 1) % STEP_EVERY === 0) yield;
  }
  return out;
}

/**
 * The ids and timestamps as bytes: newline-separated (each id followed by a newline, the timestamps
 * joined by newlines), or one JSON array when some string holds a newline. Made in pieces of
 * STEP_EVERY strings, so that no step encodes tens of megabytes at once.
 */
function* stringBytes(ids: readonly string[], timestamps: readonly string[] | TextLines): Steps<{ pieces: Buffer[]; json: boolean }> {
  const n = ids.length;
  const list = Array.isArray(timestamps) ? (timestamps as readonly string[]) : undefined;
  const lines = list ? undefined : (timestamps as TextLines);
  const times = new Array<string>(n);
  let json = false;
  for (let i = 0; i < n; i++) {
    const t = list ? list[i]! : lines!.at(i);
    times[i] = t;
    if (!json && (ids[i]!.includes("\n") || t.includes("\n"))) json = true;
    if ((i + 1) % STEP_EVERY === 0) yield;
  }
  if (json) return { pieces: [Buffer.from(JSON.stringify([...ids, ...times]), "utf8")], json };
  if (n === 0) return { pieces: [Buffer.from("\n", "utf8")], json };
  const pieces: Buffer[] = [];
  for (let a = 0; a < n; a += STEP_EVERY) {
    pieces.push(Buffer.from(`${ids.slice(a, a + STEP_EVERY).join("\n")}\n`, "utf8"));
    yield;
  }
  for (let a = 0; a < n; a += STEP_EVERY) {
    const b = Math.min(n, a + STEP_EVERY);
    pieces.push(Buffer.from(`${times.slice(a, b).join("\n")}${b < n ? "\n" : ""}`, "utf8"));
    yield;
  }
  return { pieces, json };
}

/** The index as bytes: magic, meta JSON, typed columns, strings, then a checksum of all before it. In steps (see runStepsInSlices): every pass over the entries yields as it goes. */
export function* encodeIndexSteps(data: SessionIndexData): Steps<Buffer | undefined> {
  const c = data.columns;
  const typeNames: string[] = [];
  const roleNames: (string | undefined)[] = [];
  const typeCodes = yield* codes(c.types, typeNames);
  const roleCodes = yield* codes(c.roles, roleNames);
  if (!typeCodes || !roleCodes) return undefined; // over 255 distinct types: not worth an index
  const strings = yield* stringBytes(c.ids, c.timestamps);
  const stringLength = strings.pieces.reduce((sum, b) => sum + b.length, 0);
  const meta: Meta = {
    format: INDEX_FORMAT,
    key: data.key,
    header: data.header,
    fileVersion: data.fileVersion,
    offset: data.offset,
    lineCount: data.lineCount,
    unterminated: data.unterminated,
    problems: data.problems,
    count: c.count,
    typeNames,
    roleNames: roleNames.map((r) => r ?? null),
    parentIds: c.parentIds,
    labels: c.labels,
    name: c.name ?? null,
    migrateOnParse: c.migrateOnParse,
    assistants: c.assistants,
    duplicates: c.duplicates,
    stringsJson: strings.json,
    stringBytes: stringLength,
  };
  const metaBytes = Buffer.from(JSON.stringify(meta), "utf8");
  const head = 8 + 4 + metaBytes.length;
  const pad = (8 - (head % 8)) % 8;
  const n = c.count;
  const binary = 8 * n + 8 * n + 4 * n + 4 * n + n * 3;
  // Not zeroed at once (60 MB at a million entries was one long step): every byte is written below, a piece a step.
  const out = Buffer.allocUnsafeSlow(head + pad + binary + stringLength + HASH_BYTES);
  MAGIC.copy(out, 0);
  out.writeUInt32LE(metaBytes.length, 8);
  metaBytes.copy(out, 12);
  out.fill(0, head, head + pad);
  let at = head + pad;
  for (const column of [c.offsets, c.lengths, c.lines, c.parentAt, c.flags, typeCodes, roleCodes]) {
    const bytes = Buffer.from(column.buffer, column.byteOffset, column.byteLength);
    bytes.copy(out, at);
    at += bytes.length;
    yield;
  }
  for (const piece of strings.pieces) {
    piece.copy(out, at);
    at += piece.length;
    yield;
  }
  (yield* checksumSteps(out.subarray(0, at))).copy(out, at);
  return out;
}

/** Copies `count` elements of a typed column out of the file bytes (whatever their alignment) into memory of its own. */
function column<T extends Float64Array | Int32Array | Uint8Array>(buf: Buffer, at: number, make: (memory: ArrayBuffer) => T, count: number, width: number): T {
  const start = buf.byteOffset + at;
  return make(buf.buffer.slice(start, start + count * width) as ArrayBuffer);
}

/** The key in the head of an index (its magic, meta length and meta), or undefined: not checked against the checksum. */
export function peekIndexKey(head: Buffer): IndexKey | undefined {
  try {
    if (head.length < 12 || !head.subarray(0, 8).equals(MAGIC)) return undefined;
    const metaLength = head.readUInt32LE(8);
    if (head.length < 12 + metaLength) return undefined;
    const meta = JSON.parse(head.toString("utf8", 12, 12 + metaLength)) as Meta;
    return meta.format === INDEX_FORMAT ? meta.key : undefined;
  } catch {
    return undefined;
  }
}

/** The index in `buf`, or undefined when it is not a complete, intact index of this format. */
export function decodeIndex(buf: Buffer): SessionIndexData | undefined {
  return runSteps(decodeIndexSteps(buf));
}

/** decodeIndex as steps (see runStepsInSlices): every pass over the entries yields as it goes. */
export function* decodeIndexSteps(buf: Buffer): Steps<SessionIndexData | undefined> {
  try {
    if (buf.length < 12 + HASH_BYTES || !buf.subarray(0, 8).equals(MAGIC)) return undefined;
    const body = buf.length - HASH_BYTES;
    if (!(yield* checksumSteps(buf.subarray(0, body))).equals(buf.subarray(body))) return undefined;
    const metaLength = buf.readUInt32LE(8);
    const meta = JSON.parse(buf.toString("utf8", 12, 12 + metaLength)) as Meta;
    if (meta.format !== INDEX_FORMAT) return undefined;
    const n = meta.count;
    const head = 12 + metaLength;
    let at = head + ((8 - (head % 8)) % 8);
    // One column a step: each is a copy into fresh memory (8 MB for a million offsets).
    const offsets = column(buf, at, (m) => new Float64Array(m), n, 8);
    at += 8 * n;
    yield;
    const lengths = column(buf, at, (m) => new Float64Array(m), n, 8);
    at += 8 * n;
    yield;
    const lines = column(buf, at, (m) => new Int32Array(m), n, 4);
    at += 4 * n;
    yield;
    const parentAt = column(buf, at, (m) => new Int32Array(m), n, 4);
    at += 4 * n;
    const flags = column(buf, at, (m) => new Uint8Array(m), n, 1);
    at += n;
    const typeCodes = buf.subarray(at, at + n);
    at += n;
    const roleCodes = buf.subarray(at, at + n);
    at += n;
    if (at + meta.stringBytes !== body) return undefined;
    yield;
    let ids: string[];
    let timestamps: string[] | TextLines;
    if (!meta.stringsJson && n > 0) {
      // The ids are split now (every lookup needs them); the timestamps stay one text until asked for.
      // Both are decoded in pieces that end at a newline (a newline byte is never inside a UTF-8 sequence).
      // Pieces of IDS_PER_PIECE ids: splitting one makes that many strings at once.
      const cuts: number[] = [at];
      let end = at - 1;
      for (let k = 0; k < n; k++) {
        end = buf.indexOf(0x0a, end + 1);
        if (end < 0 || end >= body) return undefined;
        if ((k + 1) % IDS_PER_PIECE === 0) {
          cuts.push(end + 1);
          yield;
        }
      }
      if (cuts[cuts.length - 1] !== end + 1) cuts.push(end + 1);
      ids = [];
      for (let c = 1; c < cuts.length; c++) {
        const piece = buf.toString("utf8", cuts[c - 1]!, cuts[c]! - 1).split("\n");
        for (const id of piece) ids.push(id);
        yield;
      }
      // The timestamps stay bytes (copied out of the index, in slices), decoded one by one when asked for.
      const timeBytes = Buffer.allocUnsafeSlow(body - (end + 1));
      for (let from = end + 1; from < body; from += CHECK_SLICE) {
        buf.copy(timeBytes, from - (end + 1), from, Math.min(body, from + CHECK_SLICE));
        yield;
      }
      const times = yield* TextLines.ofSteps(timeBytes, n);
      if (ids.length !== n || !times) return undefined;
      timestamps = times;
    } else {
      const text = buf.toString("utf8", at, at + meta.stringBytes);
      if (meta.stringsJson) {
        const strings = JSON.parse(text) as string[];
        if (strings.length !== 2 * n) return undefined;
        ids = strings.slice(0, n);
        timestamps = strings.slice(n);
      } else {
        if (text !== "\n") return undefined;
        ids = [];
        timestamps = [];
      }
    }
    const types = new Array<string>(n);
    yield;
    const roles = new Array<string | undefined>(n);
    yield;
    for (let i = 0; i < n; i++) {
      types[i] = meta.typeNames[typeCodes[i]!]!;
      roles[i] = meta.roleNames[roleCodes[i]!] ?? undefined;
      if ((i + 1) % STEP_EVERY === 0) yield;
    }
    return {
      key: meta.key,
      header: meta.header,
      fileVersion: meta.fileVersion,
      offset: meta.offset,
      lineCount: meta.lineCount,
      unterminated: meta.unterminated,
      problems: meta.problems,
      columns: {
        count: n,
        ids,
        parentIds: meta.parentIds,
        parentAt,
        types,
        roles,
        timestamps,
        lines,
        offsets,
        lengths,
        flags,
        labels: meta.labels,
        name: meta.name ?? undefined,
        migrateOnParse: meta.migrateOnParse,
        assistants: meta.assistants,
        duplicates: meta.duplicates,
      },
    };
  } catch {
    return undefined;
  }
}
