/**
 * Validating type guards for every message that crosses the host/webview boundary. They check each
 * field (types, lengths, known enum values) instead of trusting a cast: the receiver logs and drops
 * whatever fails. Extra, unknown fields are ignored.
 */
import { isFilterMode } from "../core/tree/filters";
import type { EntrySummary } from "../core/tree/types";
import {
  ENTRY_ACTIONS,
  LIMITS,
  LOG_LEVELS,
  NAVIGATION_MOVES,
  type EntryDetails,
  type HostToWebviewMessage,
  type ReadOnlyNotice,
  type SavedTreeState,
  type TreeRow,
  type TurnFileChange,
  type TurnFiles,
  type TreeSessionInfo,
  type WebviewToHostMessage,
} from "./messages";
import { isArrayOf, isBool, isCount, isIndex, isNonEmpty, isOptional, isRecord, isText, isToken } from "./validate";

export { describeInvalidMessage } from "./validate";

const isName = (x: unknown): x is string => isNonEmpty(x, LIMITS.nameLength);
/** An entry or session id: a non-empty string of sane length without control characters. */
export const isEntryId = (x: unknown): x is string => isToken(x, LIMITS.idLength);
const isRequestId = (x: unknown): x is string => isToken(x, LIMITS.requestIdLength);

const isLabelText = (x: unknown): x is string => typeof x === "string" && x.length > 0 && x.length <= LIMITS.labelLength;
const isLabelField = (x: unknown): x is string => isText(x, LIMITS.labelLength);

/** Checks every field of an entry summary. */
export function isEntrySummary(x: unknown): x is EntrySummary {
  if (!isRecord(x)) return false;
  return (
    isEntryId(x.id) &&
    (x.parentId === null || isEntryId(x.parentId)) &&
    isName(x.type) &&
    isText(x.timestamp, LIMITS.timestampLength) &&
    typeof x.line === "number" &&
    Number.isInteger(x.line) &&
    x.line >= 0 &&
    isText(x.preview, LIMITS.previewLength) &&
    isOptional(x.role, isName) &&
    isOptional(x.customType, isName) &&
    isOptional(x.toolName, isName) &&
    isOptional(x.isError, isBool) &&
    isOptional(x.textless, isBool) &&
    isOptional(x.searchText, (v) => isText(v, LIMITS.textLength)) &&
    isOptional(x.tokensBefore, isCount) &&
    isOptional(x.firstKeptEntryId, isEntryId) &&
    isOptional(x.fromId, isEntryId) &&
    isOptional(x.targetId, isEntryId) &&
    isOptional(x.label, isLabelField) &&
    isOptional(x.provider, isName) &&
    isOptional(x.modelId, isName) &&
    isOptional(x.thinkingLevel, isName) &&
    isOptional(x.checkoutMarker, isBool) &&
    isOptional(x.clamped, isBool) &&
    isOptional(x.unsaved, isBool)
  );
}

function isSessionInfo(x: unknown): x is TreeSessionInfo {
  return isRecord(x) && isEntryId(x.sessionId) && isText(x.title, LIMITS.labelLength) && isIndex(x.entryCount);
}

function isReadOnlyNotice(x: unknown): x is ReadOnlyNotice {
  return isRecord(x) && isText(x.message, LIMITS.messageLength) && isBool(x.canFork) && isOptional(x.actionLabel, isName);
}

const isPath = (x: unknown): x is string => isText(x, LIMITS.messageLength);

function isEntryDetails(x: unknown): x is EntryDetails {
  if (!isRecord(x)) return false;
  switch (x.kind) {
    case "compaction":
      return (
        isText(x.summary, LIMITS.textLength) &&
        isCount(x.tokensBefore) &&
        isEntryId(x.firstKeptEntryId) &&
        isArrayOf(x.readFiles, LIMITS.filesPerCompaction, isPath) &&
        isArrayOf(x.modifiedFiles, LIMITS.filesPerCompaction, isPath)
      );
    case "branchSummary":
      return isText(x.summary, LIMITS.textLength) && isEntryId(x.fromId);
    case "text":
      return isText(x.text, LIMITS.textLength);
    default:
      return false;
  }
}

function isTurnFileChange(x: unknown): x is TurnFileChange {
  const lines = (v: unknown): boolean => v === null || isCount(v);
  return isRecord(x) && isPath(x.path) && (x.kind === "added" || x.kind === "modified" || x.kind === "deleted") && lines(x.linesAdded) && lines(x.linesDeleted);
}

function isTurnFiles(x: unknown): x is TurnFiles {
  return isRecord(x) && isArrayOf(x.changes, LIMITS.filesPerCompaction, isTurnFileChange) && isCount(x.total) && isBool(x.first);
}

function isLevel(x: unknown): x is number {
  return typeof x === "number" && Number.isInteger(x) && x >= 1 && x <= LIMITS.rowCount;
}

const LANES = /^[lbte]*$/;

/** Checks every field of a row. */
export function isTreeRow(x: unknown): x is TreeRow {
  return (
    isRecord(x) &&
    isEntrySummary(x.entry) &&
    isLevel(x.level) &&
    isLevel(x.posInSet) &&
    isLevel(x.setSize) &&
    typeof x.lanes === "string" &&
    x.lanes.length <= LIMITS.lanes &&
    LANES.test(x.lanes) &&
    isIndex(x.hiddenLanes) &&
    isIndex(x.branches) &&
    isBool(x.folded) &&
    isBool(x.segmentStart) &&
    isBool(x.top) &&
    isBool(x.orphan) &&
    isBool(x.onPath) &&
    (x.leaf === null || x.leaf === "exact" || x.leaf === "inside") &&
    (x.label === null || isLabelText(x.label)) &&
    (x.span === null || x.span === "replaced" || x.span === "kept") &&
    isBool(x.checkpoint)
  );
}

function isRowWindow(x: unknown): boolean {
  return (
    isRecord(x) &&
    isIndex(x.version) &&
    isIndex(x.rowCount) &&
    x.rowCount <= LIMITS.rowCount &&
    isIndex(x.start) &&
    isArrayOf(x.rows, LIMITS.rowsPerWindow, isTreeRow) &&
    x.start + x.rows.length <= x.rowCount &&
    isOptional(x.seq, isIndex)
  );
}

function isViewSettings(x: unknown): boolean {
  return isRecord(x) && isFilterMode(x.filter) && isText(x.query, LIMITS.queryLength) && isArrayOf(x.folded, LIMITS.savedIds, isEntryId);
}

function isSelection(x: unknown): boolean {
  return isRecord(x) && isArrayOf(x.ids, 2, isEntryId) && typeof x.focusRow === "number" && Number.isInteger(x.focusRow) && x.focusRow >= -1;
}

function isStatus(x: unknown): boolean {
  return isRecord(x) && isIndex(x.shown) && isIndex(x.total) && isBool(x.leafHidden) && isOptional(x.leafRow, isIndex) && isOptional(x.replacedCount, isIndex);
}

function isScroll(x: unknown): boolean {
  return x === null || (isRecord(x) && isIndex(x.row) && (x.align === "nearest" || x.align === "center" || x.align === "start"));
}

/** Validates a message from the host before the webview acts on it. */
export function isHostToWebviewMessage(x: unknown): x is HostToWebviewMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "tree":
      return (
        isBool(x.reset) &&
        (x.session === null || isSessionInfo(x.session)) &&
        isViewSettings(x.view) &&
        isRowWindow(x.window) &&
        isSelection(x.selection) &&
        isStatus(x.status) &&
        isScroll(x.scroll)
      );
    case "readOnly":
      return x.notice === null || isReadOnlyNotice(x.notice);
    case "entryDetails":
      if (!isRequestId(x.requestId) || !isEntryId(x.entryId)) return false;
      if (x.ok === true) return isEntryDetails(x.details) && (x.files === undefined || isTurnFiles(x.files));
      return x.ok === false && isText(x.error, LIMITS.messageLength);
    default:
      return false;
  }
}

function isSavedState(x: unknown): x is SavedTreeState {
  return (
    isRecord(x) &&
    (x.sessionId === null || isEntryId(x.sessionId)) &&
    isIndex(x.topRow) &&
    isFilterMode(x.filter) &&
    isText(x.query, LIMITS.queryLength) &&
    isArrayOf(x.folded, LIMITS.savedIds, isEntryId) &&
    isArrayOf(x.selection, 2, isEntryId)
  );
}

/** Validates a message from the webview before the host acts on it. */
export function isWebviewToHostMessage(x: unknown): x is WebviewToHostMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "ready":
      return isOptional(x.saved, isSavedState);
    case "viewport":
      return (
        isEntryId(x.sessionId) &&
        isIndex(x.from) &&
        isIndex(x.to) &&
        x.from <= x.to &&
        isIndex(x.visibleFrom) &&
        isIndex(x.visibleTo) &&
        x.visibleFrom <= x.visibleTo &&
        isIndex(x.seq)
      );
    case "select":
      return isEntryId(x.sessionId) && isEntryId(x.id) && isBool(x.add);
    case "navigate":
      return (
        isEntryId(x.sessionId) &&
        (NAVIGATION_MOVES as readonly unknown[]).includes(x.move) &&
        isIndex(x.pageSize) &&
        x.pageSize <= LIMITS.rowsPerWindow
      );
    case "toggleFold":
      return isEntryId(x.sessionId) && isEntryId(x.id);
    case "setFilter":
      return isFilterMode(x.filter);
    case "setQuery":
      return isText(x.query, LIMITS.queryLength);
    case "checkout":
    case "fork":
    case "label":
    case "copyText":
      return (ENTRY_ACTIONS as readonly string[]).includes(x.type) && isEntryId(x.sessionId) && isEntryId(x.id);
    case "forkSession":
      return isEntryId(x.sessionId);
    case "requestDetails":
      return isRequestId(x.requestId) && isEntryId(x.sessionId) && isEntryId(x.entryId);
    case "openFileChange":
      return isEntryId(x.sessionId) && isEntryId(x.entryId) && (x.path === null || isPath(x.path));
    case "log":
      return (LOG_LEVELS as readonly unknown[]).includes(x.level) && isText(x.message, LIMITS.messageLength);
    default:
      return false;
  }
}
