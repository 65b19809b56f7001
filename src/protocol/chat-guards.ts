/**
 * Validating guards for the chat protocol (see chat-messages.ts). Each field is checked; whatever
 * fails is logged and dropped by the receiver. Extra fields are ignored.
 */
import { CHROME_LIMITS } from "../core/pi-extensions/chrome";
import { THINKING_LEVELS, type ThinkingLevel } from "../core/session/types";
import type { AssistantPart, ToolResultView, TranscriptItem } from "../core/transcript/transcript";
import {
  CHAT_LIMITS,
  type ChatModel,
  type ContextFileRef,
  type ChatSessionInfo,
  type ChatToHostMessage,
  type ContextUse,
  type ExtensionUiState,
  type ExtensionWidget,
  type HostToChatMessage,
  type QueuedPrompt,
  type RunState,
  type SlashCommand,
  type TranscriptWindow,
} from "./chat-messages";
import { isAttachmentToChatMessage, isAttachmentToHostMessage, isPromptImages } from "./chat-attachments";
import { isArrayOf, isBool, isCount, isIndex, isNonEmpty, isOneOf, isOptional, isRecord, isText, isToken, type Fields } from "./validate";

const isId = (x: unknown): x is string => isToken(x, CHAT_LIMITS.idLength);
const isName = (x: unknown): x is string => isText(x, CHAT_LIMITS.nameLength);
const isBody = (x: unknown): x is string => isText(x, CHAT_LIMITS.textLength);
const isShort = (x: unknown): x is string => isText(x, CHAT_LIMITS.messageLength);
const isThinkingLevel = isOneOf<ThinkingLevel>(THINKING_LEVELS);
const isStopReason = isOneOf(["stop", "length", "toolUse", "error", "aborted"] as const);

function isImage(x: unknown): boolean {
  return isRecord(x) && x.type === "image" && isBody(x.data) && isName(x.mimeType);
}

function isTextBlock(x: unknown): boolean {
  return isRecord(x) && x.type === "text" && isBody(x.text);
}

const isContentBlock = (x: unknown): x is object => isTextBlock(x) || isImage(x);
const isImageBlock = (x: unknown): x is object => isImage(x);

function isToolResultView(x: unknown): x is ToolResultView {
  return isRecord(x) && isId(x.entryId) && isArrayOf(x.content, CHAT_LIMITS.blocksPerItem, isContentBlock) && isBool(x.isError);
}

function isPart(x: unknown): x is AssistantPart {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "text":
      return isBody(x.text);
    case "thinking":
      return isBody(x.text) && isBool(x.redacted);
    case "toolCall":
      return isName(x.id) && isName(x.name) && isRecord(x.arguments) && isOptional(x.result, isToolResultView);
    default:
      return false;
  }
}

function isUsage(x: unknown): boolean {
  const optionalCount = (v: unknown): boolean => v === undefined || isCount(v);
  return (
    isRecord(x) &&
    isCount(x.input) &&
    isCount(x.output) &&
    isCount(x.totalTokens) &&
    optionalCount(x.cacheRead) &&
    optionalCount(x.cacheWrite) &&
    (x.cost === undefined || (isRecord(x.cost) && optionalCount(x.cost.total)))
  );
}

function itemFieldsOk(x: Fields): boolean {
  switch (x.kind) {
    case "user":
      return isBody(x.text) && isArrayOf(x.images, CHAT_LIMITS.blocksPerItem, isImageBlock);
    case "assistant":
      return (
        isArrayOf(x.parts, CHAT_LIMITS.blocksPerItem, isPart) &&
        isName(x.provider) &&
        isName(x.model) &&
        isStopReason(x.stopReason) &&
        isOptional(x.errorMessage, isBody) &&
        isOptional(x.usage, isUsage)
      );
    case "toolResult":
      return isName(x.toolCallId) && isName(x.toolName) && isToolResultView(x.result);
    case "bash":
      return (
        isBody(x.command) &&
        isBody(x.output) &&
        (x.exitCode === undefined || x.exitCode === null || typeof x.exitCode === "number") &&
        isBool(x.cancelled) &&
        isBool(x.truncated) &&
        isOptional(x.fullOutputPath, isShort) &&
        isBool(x.excludeFromContext)
      );
    case "custom":
      return isName(x.customType) && isBody(x.text) && isArrayOf(x.images, CHAT_LIMITS.blocksPerItem, isImageBlock);
    case "compaction":
      return isBody(x.summary) && isCount(x.tokensBefore) && isName(x.firstKeptEntryId);
    case "branchSummary":
      return isBody(x.summary) && isName(x.fromId);
    default:
      return false;
  }
}

/** Checks every field of a transcript item. */
export function isTranscriptItem(x: unknown): x is TranscriptItem {
  return isRecord(x) && isId(x.entryId) && isCount(x.timestamp) && itemFieldsOk(x);
}

const isSlot = (x: unknown): x is TranscriptItem | null => x === null || isTranscriptItem(x);

function isItems(x: unknown): x is (TranscriptItem | null)[] {
  return isArrayOf(x, CHAT_LIMITS.itemsPerMessage, isSlot);
}

function isWindow(x: unknown): x is TranscriptWindow {
  return isRecord(x) && isIndex(x.generation) && isIndex(x.total) && isIndex(x.start) && isItems(x.items) && x.start + x.items.length <= x.total;
}

function isSessionInfo(x: unknown): x is ChatSessionInfo | null {
  if (x === null) return true;
  return isRecord(x) && isId(x.sessionId) && isShort(x.title) && (x.readOnly === null || isShort(x.readOnly)) && (x.restriction === null || isShort(x.restriction)) && isArrayOf(x.contextFiles, 1_000, isContextFileRef);
}

function isContextFileRef(x: unknown): x is ContextFileRef {
  return isRecord(x) && isText(x.path, 10_000) && isText(x.label, 10_000);
}

function isModel(x: unknown): x is ChatModel | null {
  if (x === null) return true;
  return isRecord(x) && isNonEmpty(x.provider, CHAT_LIMITS.nameLength) && isNonEmpty(x.id, CHAT_LIMITS.nameLength) && isName(x.name) && isCount(x.contextWindow) && isArrayOf(x.thinkingLevels, 10, isThinkingLevel);
}

function isRun(x: unknown): x is RunState | null {
  if (x === null) return true;
  return isRecord(x) && isOneOf(["reply", "bash", "compaction", "summary"] as const)(x.kind) && isShort(x.label) && (x.stopLabel === undefined || x.stopLabel === "Cancel");
}

function isCommand(x: unknown): x is SlashCommand {
  return isRecord(x) && isNonEmpty(x.name, 200) && isShort(x.description) && isOptional(x.args, isShort) && isOptional(x.source, isName);
}

function isContext(x: unknown): x is ContextUse | null {
  return x === null || (isRecord(x) && isCount(x.tokens) && isCount(x.window));
}

function isQueuedPrompt(x: unknown): x is QueuedPrompt {
  return isRecord(x) && isId(x.id) && isOneOf(["steer", "followUp"] as const)(x.kind) && isText(x.text, CHAT_LIMITS.inputLength) && isCount(x.imageCount);
}

const isNotice = (x: unknown): x is string | null => x === null || isShort(x);

const isLine = (x: unknown): x is string => isText(x, CHROME_LIMITS.lineLength);

function isWidget(x: unknown): x is ExtensionWidget {
  return isRecord(x) && isName(x.extension) && isName(x.key) && isOneOf(["above", "below"] as const)(x.placement) && isArrayOf(x.lines, CHROME_LIMITS.lines, isLine);
}

function isExtensionUi(x: unknown): x is ExtensionUiState {
  if (!isRecord(x)) return false;
  const indicator = x.workingIndicator;
  return (
    isArrayOf(x.widgets, CHROME_LIMITS.widgets, isWidget) &&
    (x.title === null || isLine(x.title)) &&
    (x.workingMessage === null || isLine(x.workingMessage)) &&
    isBool(x.workingVisible) &&
    (indicator === null || (isRecord(indicator) && isArrayOf(indicator.frames, CHROME_LIMITS.frames, isLine) && isCount(indicator.intervalMs))) &&
    (x.thinkingLabel === null || isLine(x.thinkingLabel))
  );
}

const MESSAGE_COUNTS = ["user", "assistant", "toolCalls", "toolResults", "bash", "custom", "branchSummaries", "compactions", "total"] as const;
const TOKEN_COUNTS = ["input", "output", "cacheRead", "cacheWrite", "total"] as const;

function isUsageTotals(x: unknown): boolean {
  if (!isRecord(x) || !isRecord(x.messages) || !isRecord(x.tokens)) return false;
  const messages = x.messages;
  const tokens = x.tokens;
  return MESSAGE_COUNTS.every((k) => isCount(messages[k])) && TOKEN_COUNTS.every((k) => isCount(tokens[k])) && isCount(x.cost) && isCount(x.unpriced);
}

function isSessionStats(x: unknown): boolean {
  return isRecord(x) && (x.name === null || isShort(x.name)) && (x.file === null || isShort(x.file)) && isName(x.id) && isUsageTotals(x.path) && isUsageTotals(x.wholeFile);
}

/** Validates a message from the host before the chat webview acts on it. */
export function isHostToChatMessage(x: unknown): x is HostToChatMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "chatState":
      return (
        isSessionInfo(x.session) &&
        isWindow(x.transcript) &&
        isRun(x.run) &&
        isModel(x.model) &&
        isThinkingLevel(x.thinkingLevel) &&
        isNotice(x.noModel) &&
        isArrayOf(x.commands, 1_000, isCommand) &&
        isContext(x.context) &&
        (x.input === null || isText(x.input, CHAT_LIMITS.inputLength)) &&
        isExtensionUi(x.extensionUi)
      );
    case "extensionUi":
      return isExtensionUi(x.ui);
    case "focusInput":
      return true;
    case "sessionStats":
      return isSessionStats(x.stats);
    case "transcriptReset":
      return isWindow(x.transcript);
    case "itemsAppended":
      return isIndex(x.generation) && isIndex(x.total) && isIndex(x.start) && isItems(x.items);
    case "itemUpdated":
      return isIndex(x.generation) && isIndex(x.index) && isTranscriptItem(x.item);
    case "items":
      return isIndex(x.generation) && isIndex(x.start) && isItems(x.items);
    case "replyStart":
      return isName(x.provider) && isName(x.model);
    case "replyDelta":
      return isIndex(x.index) && isOneOf(["text", "thinking", "toolCall"] as const)(x.part) && isBody(x.delta);
    case "replyEnd":
      return true;
    case "toolProgress":
      return isName(x.toolCallId) && isOneOf(["running", "output", "done"] as const)(x.state) && isName(x.toolName) && isOptional(x.text, isBody);
    case "bashProgress":
      return isOneOf(["start", "output", "end"] as const)(x.state) && isOptional(x.command, isBody) && isOptional(x.text, isBody);
    case "runState":
      return isRun(x.run);
    case "modelState":
      return isModel(x.model) && isThinkingLevel(x.thinkingLevel) && isNotice(x.noModel) && isContext(x.context);
    case "sessionInfo":
      return isSessionInfo(x.session);
    case "commands":
      return isArrayOf(x.commands, 1_000, isCommand);
    case "setInput":
      return isText(x.text, CHAT_LIMITS.inputLength);
    case "notice":
      return isOneOf(["info", "error"] as const)(x.level) && isShort(x.text);
    case "queue":
      return isArrayOf(x.queued, CHAT_LIMITS.queuedPrompts, isQueuedPrompt);
    default:
      return isAttachmentToChatMessage(x);
  }
}

/** Validates a message from the chat webview before the host acts on it. */
export function isChatToHostMessage(x: unknown): x is ChatToHostMessage {
  if (!isRecord(x)) return false;
  switch (x.type) {
    case "ready":
    case "stop":
    case "pickModel":
    case "addModel":
      return true;
    case "cycle":
      return isOneOf(["model", "modelBackward", "thinking"] as const)(x.what);
    case "send":
      return isText(x.text, CHAT_LIMITS.inputLength) && isPromptImages(x.images) && isOptional(x.followUp, isBool);
    case "inputChanged":
      return isText(x.text, CHAT_LIMITS.inputLength);
    case "takeBackQueued":
      return isOptional(x.id, isId);
    case "requestItems":
      return isIndex(x.generation) && isIndex(x.start) && isIndex(x.end) && x.end >= x.start && x.end - x.start <= CHAT_LIMITS.requestSpan;
    case "setThinkingLevel":
      return isThinkingLevel(x.level);
    case "openLink":
      return isText(x.href, 10_000) && /^(?:https?:|mailto:)/i.test(x.href);
    case "openContextFile":
      return isText(x.path, 10_000);
    case "copy":
    case "insertCode":
      return isText(x.text, CHAT_LIMITS.textLength);
    case "revealEntry":
      return isId(x.entryId);
    case "log":
      return isOneOf(["info", "warn", "error"] as const)(x.level) && isShort(x.message);
    default:
      return isAttachmentToHostMessage(x);
  }
}
