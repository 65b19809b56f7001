import { joinTextBlocks } from "../session/entry-text";
import { untilAborted } from "./abort";
import type { SummaryRequest } from "../compaction/summary-requests";
import type { ThinkingLevel } from "../session/types";
import { collectStream, type ModelInfo, type ModelProvider } from "./providers/provider";

/** How a summary call ended. */
export type SummaryOutcome = { kind: "ok"; text: string } | { kind: "aborted" } | { kind: "error"; message: string };

/**
 * Sends one summary request (compaction or branch summary) through the session's provider and
 * returns the reply's text. Never throws: aborts and failures come back as outcomes, so callers can
 * make sure nothing is written unless a summary actually arrived.
 */
export async function requestSummary(
  provider: ModelProvider,
  model: ModelInfo,
  request: SummaryRequest,
  signal: AbortSignal,
  thinkingLevel?: ThinkingLevel,
): Promise<SummaryOutcome> {
  if (signal.aborted) return { kind: "aborted" };
  const events = provider.stream(
    {
      model,
      systemPrompt: request.systemPrompt,
      messages: [{ role: "user", content: [{ type: "text", text: request.prompt }], timestamp: Date.now() }],
      maxTokens: request.maxTokens,
      thinkingLevel,
    },
    signal,
  );
  let reply;
  try {
    reply = await collectStream(untilAborted(events, signal));
  } catch (error) {
    return signal.aborted ? { kind: "aborted" } : { kind: "error", message: error instanceof Error ? error.message : String(error) };
  }
  if (reply.stopReason === "aborted" || signal.aborted) return { kind: "aborted" };
  if (reply.stopReason === "error") return { kind: "error", message: reply.errorMessage ?? "The model failed without saying why." };
  const text = joinTextBlocks(reply.content, "\n");
  return { kind: "ok", text };
}
