/**
 * The messages that context resolution derives from non-message entries, and the text a
 * bash run becomes for the model. Pure: no Node, no VS Code.
 *
 * Key order in the built objects follows Pi's, so that JSON output (the CLI's `context`) is
 * byte-for-byte the same as the reference's.
 */
import type {
  AgentMessage,
  BashExecutionMessage,
  BranchSummaryMessage,
  CompactionSummaryMessage,
  CustomMessage,
  CustomMessageEntry,
  ImageContent,
  SessionEntry,
  TextContent,
} from "../session/types";

/**
 * Epoch milliseconds of an entry timestamp. Uses `new Date(x).getTime()` rather than
 * `Date.parse` because that is what Pi does, and the two differ on non-string input
 * (a malformed file may hold a number): the result must match Pi's exactly.
 */
export function toEpochMillis(timestamp: unknown): number {
  return new Date(timestamp as string | number).getTime();
}

/** The custom message a `custom_message` entry stands for. */
export function createCustomMessage(
  customType: string,
  content: string | (TextContent | ImageContent)[],
  display: boolean,
  details: unknown,
  timestamp: string,
): CustomMessage {
  return { role: "custom", customType, content, display, details, timestamp: toEpochMillis(timestamp) };
}

/** The branch-summary message a `branch_summary` entry stands for. */
export function createBranchSummaryMessage(summary: string, fromId: string, timestamp: string): BranchSummaryMessage {
  return { role: "branchSummary", summary, fromId, timestamp: toEpochMillis(timestamp) };
}

/** The compaction-summary message a `compaction` entry stands for. */
export function createCompactionSummaryMessage(
  summary: string,
  tokensBefore: number,
  timestamp: string,
): CompactionSummaryMessage {
  return { role: "compactionSummary", summary, tokensBefore, timestamp: toEpochMillis(timestamp) };
}

function customMessageOf(entry: CustomMessageEntry): CustomMessage {
  return createCustomMessage(entry.customType, entry.content, entry.display, entry.details, entry.timestamp);
}

/**
 * The agent message an entry carries or stands for, before any caller-specific filtering:
 * `message` → its message, `custom_message` → a custom message, `branch_summary` → a
 * branch-summary message (even when the summary is empty), `compaction` → a compaction-summary
 * message; every other type (and a `message` entry without a message object) → undefined.
 *
 * Context resolution, compaction and branch summaries each drop a different subset of these,
 * so the filtering stays with them.
 */
export function messageFromEntry(entry: SessionEntry): AgentMessage | undefined {
  switch (entry.type) {
    case "message":
      return isObject(entry.message) ? entry.message : undefined;
    case "custom_message":
      return customMessageOf(entry);
    case "branch_summary":
      return createBranchSummaryMessage(entry.summary, entry.fromId, entry.timestamp);
    case "compaction":
      return createCompactionSummaryMessage(entry.summary, entry.tokensBefore, entry.timestamp);
    default:
      return undefined;
  }
}

/**
 * The user text a `!cmd` run becomes for the model: the command, its output in a fence (or a
 * no-output note), then a cancelled note or a non-zero exit code, then a truncation note.
 * The wording is Pi's, byte for byte: a resumed session must show the model the same text.
 */
export function bashExecutionToText(message: BashExecutionMessage): string {
  let text = `Ran \`${message.command}\`\n`;
  text += message.output ? `\`\`\`\n${message.output}\n\`\`\`` : "(no output)";
  if (message.cancelled) {
    text += "\n\n(command cancelled)";
  } else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`;
  }
  if (message.truncated && message.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text;
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}
