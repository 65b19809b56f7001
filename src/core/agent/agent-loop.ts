/**
 * The agent loop: send the context to the model, append its reply, run the tools it called and
 * append their results, and call the model again until it stops. Each message is appended only
 * once complete, so a stopped or failed run never leaves half an entry behind.
 */
import { convertToLlm } from "../context/convert-to-llm";
import type { SessionManager } from "../session/session-manager";
import type { AssistantMessage, ThinkingLevel, ToolCall } from "../session/types";
import { untilAborted } from "./abort";
import type { AgentSessionEvent } from "./events";
import type { OutputLimits } from "./output/output-limits";
import { PartialReply } from "./partial-reply";
import { isContextOverflow } from "./providers/provider-errors";
import { ABORTED_ERROR_MESSAGE, type ModelInfo, type ModelProvider, type ModelRequest, type ToolDefinition } from "./providers/provider";
import { ToolSet } from "./tool-runner";

/** Error text of a reply whose stream broke its contract (no final message). */
export const STREAM_WITHOUT_END_MESSAGE = "The model stream ended without a final message.";
/** Error text when the loop stops a model that keeps calling tools. */
export const TOO_MANY_TURNS_MESSAGE = "Stopped: the model kept calling tools for too many turns in a row.";

export interface TurnLoopInput {
  sessionManager: SessionManager;
  provider: ModelProvider;
  model: ModelInfo;
  thinkingLevel: ThinkingLevel;
  tools: ToolSet;
  systemPrompt: (tools: readonly ToolDefinition[]) => string;
  signal: AbortSignal;
  limits: OutputLimits;
  allowShell: boolean;
  outputDirectory?: string;
  maxTurns: number;
  emit(event: AgentSessionEvent): void;
  /** After a context-overflow error: compact, and say whether to send the request once more. */
  recoverFromOverflow(): Promise<boolean>;
}

/** Runs model turns until the model stops; returns the last assistant message. */
export async function runTurnLoop(input: TurnLoopInput): Promise<AssistantMessage> {
  let overflowRecovered = false;
  let last: AssistantMessage | undefined;
  for (let turn = 0; turn < input.maxTurns; turn++) {
    last = await streamReply(input);
    input.emit({ type: "message_end", message: last, entryId: input.sessionManager.appendMessage(last) });
    // An overflow is an error that says so, or (a "silent" overflow) a reply whose input tokens
    // exceed the window: the server dropped part of the context. Either way: compact, send again.
    const silent = last.stopReason === "stop" || last.stopReason === "length";
    if ((last.stopReason === "error" || silent) && !overflowRecovered && isContextOverflow(last, silent ? input.model.contextWindow : undefined)) {
      overflowRecovered = true;
      if (await input.recoverFromOverflow()) continue;
      return last;
    }
    const calls = last.content.filter((block): block is ToolCall => block.type === "toolCall");
    if (last.stopReason !== "toolUse" || calls.length === 0) return last;
    await runToolCalls(calls, input);
    if (input.signal.aborted) return last;
  }
  input.emit({ type: "error", error: new Error(TOO_MANY_TURNS_MESSAGE) });
  return last!;
}

/** One model call: streams the reply to the front ends and returns the final message. */
async function streamReply(input: TurnLoopInput): Promise<AssistantMessage> {
  const context = input.sessionManager.buildSessionContext();
  const tools = input.tools.definitions();
  const request: ModelRequest = {
    model: input.model,
    systemPrompt: input.systemPrompt(tools),
    messages: convertToLlm(context.messages),
    thinkingLevel: input.thinkingLevel,
    sessionId: input.sessionManager.getSessionId(),
  };
  if (tools.length > 0) request.tools = tools;
  // No maxTokens: the backend caps the output at the model's own default, as Pi's agent does.

  const partial = new PartialReply(input.model);
  input.emit({ type: "message_start", message: partial.message });
  let final: AssistantMessage | undefined;
  try {
    for await (const event of untilAborted(input.provider.stream(request, input.signal), input.signal)) {
      if (event.type === "done" || event.type === "error") {
        final = event.message;
        continue;
      }
      if (event.type === "start") continue;
      partial.apply(event);
      input.emit({ type: "message_update", message: partial.message, delta: event });
    }
  } catch (error) {
    // Providers promise not to throw; if one does, what streamed so far is still kept.
    final = failedFrom(partial.message, input.signal.aborted ? "aborted" : "error", error instanceof Error ? error.message : String(error));
  }
  if (final) return final;
  return input.signal.aborted ? failedFrom(partial.message, "aborted", ABORTED_ERROR_MESSAGE) : failedFrom(partial.message, "error", STREAM_WITHOUT_END_MESSAGE);
}

function failedFrom(partial: AssistantMessage, stopReason: "error" | "aborted", errorMessage: string): AssistantMessage {
  return { ...partial, content: [...partial.content], stopReason, errorMessage };
}

/** Runs the calls in order; once the run is stopped, the remaining calls get a "cancelled" result. */
async function runToolCalls(calls: readonly ToolCall[], input: TurnLoopInput): Promise<void> {
  for (const call of calls) {
    if (input.signal.aborted) {
      appendResult(call, ToolSet.cancelledResult(call), input);
      continue;
    }
    input.emit({ type: "tool_start", toolCallId: call.id, toolName: call.name, args: call.arguments ?? {} });
    const result = await input.tools.run(call, {
      cwd: input.sessionManager.getCwd(),
      signal: input.signal,
      limits: input.limits,
      allowShell: input.allowShell,
      outputDirectory: input.outputDirectory,
      onUpdate: (toolCallId, text) => input.emit({ type: "tool_update", toolCallId, text }),
    });
    appendResult(call, result, input);
  }
}

function appendResult(call: ToolCall, result: ReturnType<typeof ToolSet.cancelledResult>, input: TurnLoopInput): void {
  const entryId = input.sessionManager.appendMessage(result);
  input.emit({ type: "message_end", message: result, entryId });
  input.emit({ type: "tool_end", toolCallId: call.id, result, entryId });
}
