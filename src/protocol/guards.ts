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
  type EntryDetails,
  type HostToWebviewMessage,
  type LabelAssignment,
  type LabelUpdate,
  type ReadOnlyNotice,
  type SessionSnapshot,
  type WebviewToHostMessage,
} from "./messages";
import { isArrayOf, isBool, isCount, isNonEmpty, isOptional, isRecord, isText, isToken } from "./validate";

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
    isOptional(x.toolOnly, isBool) &&
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

function isLabelAssignment(x: unknown): x is LabelAssignment {
  return isRecord(x) && isEntryId(x.targetId) && isLabelText(x.label);
}

function isLabelUpdate(x: unknown): x is LabelUpdate {
  return isRecord(x) && isEntryId(x.targetId) && (x.label === null || isLabelText(x.label));
}

function isSessionName(x: unknown): x is string | null {
  return x === null || isText(x, LIMITS.labelLength);
}

function isSessionSnapshot(x: unknown): x is SessionSnapshot {
  return (
    isRecord(x) &&
    isEntryId(x.sessionId) &&
    isSessionName(x.name) &&
    isArrayOf(x.entries, LIMITS.entriesPerMessage, isEntrySummary) &&
    isArrayOf(x.labels, LIMITS.entriesPerMessage, isLabelAssignment) &&
    (x.leafId === null || isEntryId(x.leafId))
  );
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

/** Validates a message from the host before the webview acts on it. */
export function isHostToWebviewMessage(x: unknown): x is HostToWebviewMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "state":
      return (
        (x.session === null || isSessionSnapshot(x.session)) &&
        (x.readOnly === null || isReadOnlyNotice(x.readOnly)) &&
        isOptional(x.defaultFilter, isFilterMode)
      );
    case "entriesAppended":
      return (
        isEntryId(x.sessionId) &&
        isArrayOf(x.entries, LIMITS.entriesPerMessage, isEntrySummary) &&
        (x.leafId === null || isEntryId(x.leafId))
      );
    case "leafMoved":
      return isEntryId(x.sessionId) && (x.leafId === null || isEntryId(x.leafId));
    case "labelsChanged":
      return isEntryId(x.sessionId) && isArrayOf(x.changes, LIMITS.entriesPerMessage, isLabelUpdate);
    case "sessionRenamed":
      return isEntryId(x.sessionId) && isSessionName(x.name);
    case "readOnly":
      return x.notice === null || isReadOnlyNotice(x.notice);
    case "entryDetails":
      if (!isRequestId(x.requestId) || !isEntryId(x.entryId)) return false;
      if (x.ok === true) return isEntryDetails(x.details);
      return x.ok === false && isText(x.error, LIMITS.messageLength);
    case "reveal":
      return isEntryId(x.sessionId) && isEntryId(x.entryId);
    case "setFilter":
      return isFilterMode(x.filter);
    default:
      return false;
  }
}

/** Validates a message from the webview before the host acts on it. */
export function isWebviewToHostMessage(x: unknown): x is WebviewToHostMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "ready":
      return true;
    case "checkout":
    case "fork":
    case "label":
    case "copyText":
      return (ENTRY_ACTIONS as readonly string[]).includes(x.type) && isEntryId(x.sessionId) && isEntryId(x.id);
    case "forkSession":
      return isEntryId(x.sessionId);
    case "requestDetails":
      return isRequestId(x.requestId) && isEntryId(x.sessionId) && isEntryId(x.entryId);
    case "selectionChanged":
      return isEntryId(x.sessionId) && (x.id === null || isEntryId(x.id));
    case "log":
      return (LOG_LEVELS as readonly unknown[]).includes(x.level) && isText(x.message, LIMITS.messageLength);
    default:
      return false;
  }
}
