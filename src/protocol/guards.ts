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

type Fields = { readonly [key: string]: unknown };

function isRecord(x: unknown): x is Fields {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

// Ids end up in DOM ids, attributes and log lines: no control characters.
const CONTROL = /[\u0000-\u001f\u007f]/;

function isText(x: unknown, max: number): x is string {
  return typeof x === "string" && x.length <= max;
}

function isName(x: unknown): x is string {
  return typeof x === "string" && x.length > 0 && x.length <= LIMITS.nameLength;
}

/** An entry or session id: a non-empty string of sane length without control characters. */
export function isEntryId(x: unknown): x is string {
  return typeof x === "string" && x.length > 0 && x.length <= LIMITS.idLength && !CONTROL.test(x);
}

function isRequestId(x: unknown): x is string {
  return typeof x === "string" && x.length > 0 && x.length <= LIMITS.requestIdLength && !CONTROL.test(x);
}

function isOptional(x: unknown, check: (v: unknown) => boolean): boolean {
  return x === undefined || check(x);
}

function isBool(x: unknown): x is boolean {
  return typeof x === "boolean";
}

function isCount(x: unknown): x is number {
  return typeof x === "number" && Number.isFinite(x) && x >= 0;
}

function isArrayOf<T>(x: unknown, max: number, check: (v: unknown) => v is T): x is T[] {
  if (!Array.isArray(x) || x.length > max) return false;
  for (const item of x) if (!check(item)) return false;
  return true;
}

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
    isOptional(x.clamped, isBool)
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
  return isRecord(x) && isText(x.message, LIMITS.messageLength) && isBool(x.canFork);
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

/** A short reason for logging a dropped message, without echoing its (possibly huge) content. */
export function describeInvalidMessage(x: unknown): string {
  if (!isRecord(x)) return `not an object (${x === null ? "null" : Array.isArray(x) ? "array" : typeof x})`;
  const type = typeof x.type === "string" ? JSON.stringify(x.type.slice(0, 40)) : "missing";
  return `invalid message of type ${type}`;
}
