/**
 * Turning a resolved context into what a model provider accepts: user, assistant and tool
 * results only. Pure: no Node, no VS Code.
 *
 * The wrapper texts below are part of the compatibility contract, not prose of ours: a session
 * resumed in Pi and in Arbor must show the model the same bytes, so they repeat Pi's wording
 * and newline placement exactly (the tests check this against the reference package).
 */
import type { AgentMessage, LlmMessage, TextContent, UserMessage } from "../session/types";
import { bashExecutionToText } from "./messages";

/** Put before a compaction summary. */
export const COMPACTION_SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/** Put after a compaction summary (note the newline before the closing tag). */
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
/** Put before a branch summary. */
export const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/** Put after a branch summary (no newline before the closing tag, unlike compaction). */
export const BRANCH_SUMMARY_SUFFIX = "</summary>";

/**
 * The messages a model sees for a context. user / assistant / toolResult pass through as the
 * same objects; a bash run becomes a user text (dropped when excluded from context); a custom
 * message becomes a user message; summaries become user texts wrapped in `<summary>` tags.
 * Messages of roles this version does not know are dropped rather than sent.
 */
export function convertToLlm(messages: readonly AgentMessage[]): LlmMessage[] {
  const converted: LlmMessage[] = [];
  for (const message of messages) {
    const llm = toLlmMessage(message);
    if (llm) converted.push(llm);
  }
  return converted;
}

function toLlmMessage(message: AgentMessage): LlmMessage | undefined {
  switch (message.role) {
    case "user":
    case "assistant":
    case "toolResult":
      return message;
    case "bashExecution":
      return message.excludeFromContext ? undefined : userText(bashExecutionToText(message), message.timestamp);
    case "custom": {
      const content = typeof message.content === "string" ? [textBlock(message.content)] : message.content;
      return { role: "user", content, timestamp: message.timestamp };
    }
    case "branchSummary":
      return userText(BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX, message.timestamp);
    case "compactionSummary":
      return userText(COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX, message.timestamp);
    default:
      return undefined;
  }
}

function userText(text: string, timestamp: number): UserMessage {
  return { role: "user", content: [textBlock(text)], timestamp };
}

function textBlock(text: string): TextContent {
  return { type: "text", text };
}
