import type { EntrySummary } from "./types";

/** How an entry reads in the tree, whatever draws it. */
export type EntryKind =
  | "user"
  | "assistant"
  | "tool-result"
  | "bash"
  | "custom-message"
  | "message"
  | "compaction"
  | "branch-summary"
  | "model-change"
  | "thinking-change"
  | "label"
  | "custom"
  | "session-info"
  | "unknown";

/**
 * The plain-text description of one row. Every field is text to be set with `textContent` (or as an
 * attribute value): nothing here is ever parsed as HTML.
 */
export interface EntryView {
  readonly kind: EntryKind;
  /** A codicon name (without the `codicon-` prefix). */
  readonly icon: string;
  /** A short tag before the text: "user", "assistant", a tool name, "compaction", ... */
  readonly tag: string;
  /** The one-line text. */
  readonly text: string;
  /** A short detail drawn as a badge, e.g. "48.2k tokens" on a compaction. */
  readonly detail?: string;
  readonly isError: boolean;
}

/** 100000 → "100,000", without Intl (its first use costs milliseconds the first paint cannot spare). */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** 48213 → "48.2k", 1250000 → "1.3M"; exact below a thousand. */
export function formatTokens(tokens: number): string {
  if (!Number.isFinite(tokens) || tokens < 1000) return String(Math.max(0, Math.round(Number.isFinite(tokens) ? tokens : 0)));
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0).replace(/\.0$/, "")}k`;
  return `${(tokens / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

function describeMessage(e: EntrySummary): EntryView {
  const isError = e.isError === true;
  switch (e.role) {
    case "user":
      return { kind: "user", icon: "account", tag: "user", text: e.preview, isError };
    case "assistant":
      return { kind: "assistant", icon: isError ? "error" : "hubot", tag: "assistant", text: e.preview, isError };
    case "toolResult":
      return { kind: "tool-result", icon: isError ? "error" : "tools", tag: e.toolName || "tool", text: e.preview, isError };
    case "bashExecution":
      return { kind: "bash", icon: "terminal", tag: "bash", text: e.preview, isError };
    case "custom":
      return { kind: "custom-message", icon: "extensions", tag: e.customType || "custom", text: e.preview, isError };
    default:
      return { kind: "message", icon: "comment", tag: e.role || "message", text: e.preview, isError };
  }
}

/** Describes an entry for drawing and for screen readers. */
export function describeEntry(e: EntrySummary): EntryView {
  switch (e.type) {
    case "message":
      return describeMessage(e);
    case "custom_message":
      return { kind: "custom-message", icon: "extensions", tag: e.customType || "custom", text: e.preview, isError: false };
    case "compaction":
      return {
        kind: "compaction",
        icon: "fold",
        tag: "compaction",
        text: e.preview,
        detail: e.tokensBefore === undefined ? undefined : `${formatTokens(e.tokensBefore)} tokens`,
        isError: false,
      };
    case "branch_summary":
      return { kind: "branch-summary", icon: "git-merge", tag: "branch summary", text: e.preview, isError: false };
    case "model_change":
      return { kind: "model-change", icon: "chip", tag: "model", text: e.modelId ? `${e.provider ? `${e.provider}/` : ""}${e.modelId}` : e.preview, isError: false };
    case "thinking_level_change":
      return { kind: "thinking-change", icon: "lightbulb", tag: "thinking", text: e.thinkingLevel ?? e.preview, isError: false };
    case "label":
      return { kind: "label", icon: "tag", tag: "label", text: e.label ?? "(cleared)", isError: false };
    case "custom":
      return { kind: "custom", icon: "symbol-misc", tag: "custom", text: e.customType ?? e.preview, isError: false };
    case "session_info":
      return { kind: "session-info", icon: "edit", tag: "name", text: e.preview, isError: false };
    default:
      return { kind: "unknown", icon: "question", tag: e.type, text: e.preview, isError: false };
  }
}

/** State of a row that a screen reader should hear besides its text. */
export interface RowAnnouncement {
  label?: string;
  isLeaf?: boolean;
  onActivePath?: boolean;
}

/** The accessible name of a row: tag, text, detail, label and path state, in plain words. */
export function accessibleNameOf(view: EntryView, state: RowAnnouncement = {}): string {
  const parts = [`${view.tag}: ${view.text}`];
  if (view.detail) parts.push(view.detail);
  if (view.isError) parts.push("error");
  if (state.label) parts.push(`label ${state.label}`);
  if (state.isLeaf) parts.push("current leaf");
  else if (state.onActivePath) parts.push("on active path");
  return parts.join(", ");
}
