/**
 * The agent loop: send the context to the model, append its reply, run the tools it called and
 * append their results, and call the model again until it stops. Each message is appended only
 * once complete, so a stopped or failed run never leaves half an entry behind.
 *
 * Extensions take part at Pi's points (hooks.ts): turn_start, the steered messages, context,
 * before_provider_request, message_start/update/end, tool_execution_start, tool_call,
 * tool_execution_update, tool_result, tool_execution_end, turn_end; messages sent during the run
 * are recorded after a turn's tool calls (steering) or when the model would stop (follow-ups).
 * As in Pi 0.73.1, a steering message never skips the tool calls the reply made: they all run first.
 */
import { convertToLlm } from "../context/convert-to-llm";
import { withoutImages } from "../context/blocked-images";
import type { SessionManager } from "../session/session-manager";
import type { AgentMessage, AssistantMessage, StoredMessage, ThinkingLevel, ToolCall, ToolResultMessage } from "../session/types";
import { untilAborted } from "./abort";
import type { AutoRetry } from "./auto-retry";
import type { AgentSessionEvent } from "./events";
import type { AgentSessionHooks } from "./hooks";
import type { MessageQueue, QueuedMessage } from "./message-queue";
import type { OutputLimits } from "./output/output-limits";
import { PartialReply } from "./partial-reply";
import { isContextOverflow } from "./providers/provider-errors";
import { ABORTED_ERROR_MESSAGE, type ModelInfo, type ModelProvider, type ModelRequest, type ToolDefinition } from "./providers/provider";
import type { ProcessGroups } from "./shell/process-groups";
import { ToolSet } from "./tool-runner";

/** Error text of a reply whose stream broke its contract (no final message). */
export const STREAM_WITHOUT_END_MESSAGE = "The model stream ended without a final message.";
/** Error text when the loop stops a model that keeps calling tools. */
export const TOO_MANY_TURNS_MESSAGE = "Stopped: the model kept calling tools for too many turns in a row.";
/** The tool result the model reads when an extension blocked a call without a reason. */
export const BLOCKED_TOOL_CALL_MESSAGE = "An extension blocked this tool call.";

/** How a run records its messages (the session does it the same way for the prompt and for the loop). */
export interface RunRecorder {
  sessionManager: SessionManager;
  hooks?: AgentSessionHooks;
  emit(event: AgentSessionEvent): void;
  /** Runs before queued prompts are recorded (a checkpoint of the files they start from). */
  beforeQueued?: () => Promise<void>;
}

/**
 * Records one message of a run: message_start for extensions, the message_end hook (which may
 * replace it with a message of the same role), the append, and the front ends' message_end.
 * Assistant messages had their message_start when they began streaming.
 */
export async function recordRunMessage(recorder: RunRecorder, message: StoredMessage): Promise<{ entryId: string; message: StoredMessage }> {
  if (message.role !== "assistant") recorder.hooks?.notify?.({ type: "message_start", message });
  const replaced = ((await recorder.hooks?.messageEnd?.(message)) as StoredMessage | undefined) ?? message;
  const entryId =
    replaced.role === "custom"
      ? recorder.sessionManager.appendCustomMessageEntry(replaced.customType, replaced.content, replaced.display, replaced.details)
      : recorder.sessionManager.appendMessage(replaced);
  recorder.emit({ type: "message_end", message: replaced, entryId });
  return { entryId, message: replaced };
}

export interface TurnLoopInput extends RunRecorder {
  provider: ModelProvider;
  model: ModelInfo;
  thinkingLevel: ThinkingLevel;
  tools: ToolSet;
  systemPrompt: (tools: readonly ToolDefinition[]) => string;
  signal: AbortSignal;
  limits: OutputLimits;
  allowShell: boolean;
  outputDirectory?: string;
  processGroups?: ProcessGroups;
  maxTurns: number;
  /** Messages sent while the run goes; taken after each turn. */
  queue?: MessageQueue;
  /** Every message the run added, in order (for agent_end). */
  added?: AgentMessage[];
  /** After a context-overflow error: compact, and say whether to send the request once more. */
  recoverFromOverflow(): Promise<boolean>;
  /** Automatic retries of transient errors (none without it). */
  retry?: AutoRetry;
  /** Pi's `images.blockImages`, read per request: the model gets a line in place of each image. */
  blockImages?: () => boolean;
}

/** Runs model turns until the model stops; returns the last assistant message. */
export async function runTurnLoop(input: TurnLoopInput): Promise<AssistantMessage> {
  let overflowRecovered = false;
  let last: AssistantMessage | undefined;
  let pending = input.queue?.take("steer") ?? [];
  for (let turn = 0; turn < input.maxTurns; turn++) {
    if (turn > 0) input.hooks?.notify?.({ type: "turn_start", turnIndex: turn, timestamp: Date.now() });
    await recordQueued(pending, input);
    pending = [];
    const streamed = await streamReply(input);
    last = (await record(input, streamed.message)) as AssistantMessage;
    input.retry?.noteReply(last);
    // An overflow is an error that says so, or (a "silent" overflow) a reply whose input tokens
    // exceed the window: the server dropped part of the context. Either way: compact, send again.
    const silent = last.stopReason === "stop" || last.stopReason === "length";
    if ((last.stopReason === "error" || silent) && !overflowRecovered && isContextOverflow(last, silent ? input.model.contextWindow : undefined)) {
      overflowRecovered = true;
      input.hooks?.notify?.({ type: "turn_end", turnIndex: turn, message: last, toolResults: [] });
      if (await input.recoverFromOverflow()) {
        pending = input.queue?.take("steer") ?? [];
        continue;
      }
      return last;
    }
    // A transient error: the failed reply stays in the file, out of the next call's context, as in Pi.
    if (last.stopReason === "error" && !input.signal.aborted && input.retry) {
      input.hooks?.notify?.({ type: "turn_end", turnIndex: turn, message: last, toolResults: [] });
      // As in Pi, the call is sent again as a continuation: steering that came meanwhile goes before it.
      if (await input.retry.shouldRetry(last, { contextWindow: input.model.contextWindow, retryAfter: streamed.retryAfter, signal: input.signal })) {
        pending = input.queue?.take("steer") ?? [];
        continue;
      }
      return last;
    }
    const calls = last.stopReason === "toolUse" ? last.content.filter((block): block is ToolCall => block.type === "toolCall") : [];
    const toolResults = calls.length > 0 ? await runToolCalls(calls, input) : [];
    input.hooks?.notify?.({ type: "turn_end", turnIndex: turn, message: last, toolResults });
    if (input.signal.aborted || last.stopReason === "error" || last.stopReason === "aborted") return last;
    pending = input.queue?.take("steer") ?? [];
    if (calls.length > 0 || pending.length > 0) continue;
    pending = input.queue?.take("followUp") ?? [];
    if (pending.length === 0) return last;
  }
  input.emit({ type: "error", error: new Error(TOO_MANY_TURNS_MESSAGE) });
  return last!;
}

async function record(input: TurnLoopInput, message: StoredMessage): Promise<StoredMessage> {
  const recorded = await recordRunMessage(input, message);
  input.added?.push(recorded.message);
  return recorded.message;
}

/** Records messages that were waiting (steering or follow-ups) and tells their senders. */
export async function recordQueued(items: readonly QueuedMessage[], input: RunRecorder & { added?: AgentMessage[] }): Promise<void> {
  if (items.length > 0) await input.beforeQueued?.();
  for (const item of items) {
    try {
      const recorded = await recordRunMessage(input, item.message);
      input.added?.push(recorded.message);
      item.settle({ kind: "recorded", entryId: recorded.entryId });
    } catch (error) {
      item.settle({ kind: "failed", error: error instanceof Error ? error : new Error(String(error)) });
    }
  }
}

/** One model call: streams the reply to the front ends and returns the final message (and a failure's Retry-After). */
async function streamReply(input: TurnLoopInput): Promise<{ message: AssistantMessage; retryAfter?: string }> {
  const context = input.sessionManager.buildSessionContext();
  const messages = (await input.hooks?.context?.(context.messages)) ?? context.messages;
  const tools = input.tools.definitions();
  const request: ModelRequest = {
    model: input.model,
    systemPrompt: input.systemPrompt(tools),
    messages: input.blockImages?.() ? withoutImages(convertToLlm(messages)) : convertToLlm(messages),
    thinkingLevel: input.thinkingLevel,
    sessionId: input.sessionManager.getSessionId(),
  };
  if (tools.length > 0) request.tools = tools;
  // No maxTokens: the backend caps the output at the model's own default, as Pi's agent does.
  const beforeRequest = input.hooks?.beforeProviderRequest;
  if (beforeRequest) request.onPayload = (payload) => beforeRequest(payload);

  const partial = new PartialReply(input.model);
  input.emit({ type: "message_start", message: partial.message });
  // Extensions hear of the reply once the backend accepted the request (after before_provider_request), as in Pi.
  let announced = false;
  const announce = (message: AssistantMessage): void => {
    if (announced) return;
    announced = true;
    input.hooks?.notify?.({ type: "message_start", message: structuredClone(message) });
  };
  let final: AssistantMessage | undefined;
  let retryAfter: string | undefined;
  try {
    for await (const event of untilAborted(input.provider.stream(request, input.signal), input.signal)) {
      if (event.type === "done" || event.type === "error") {
        final = event.message;
        if (event.type === "error") retryAfter = event.retryAfter;
        continue;
      }
      announce(partial.message);
      if (event.type === "start") continue;
      partial.apply(event);
      input.emit({ type: "message_update", message: partial.message, delta: event });
      if (input.hooks?.notify) {
        const snapshot = structuredClone(partial.message);
        input.hooks.notify({ type: "message_update", message: snapshot, assistantMessageEvent: { ...event, partial: snapshot } });
      }
    }
  } catch (error) {
    // Providers promise not to throw; if one does, what streamed so far is still kept.
    final = failedFrom(partial.message, input.signal.aborted ? "aborted" : "error", error instanceof Error ? error.message : String(error));
  }
  final ??= input.signal.aborted ? failedFrom(partial.message, "aborted", ABORTED_ERROR_MESSAGE) : failedFrom(partial.message, "error", STREAM_WITHOUT_END_MESSAGE);
  announce(final);
  return { message: final, retryAfter };
}

function failedFrom(partial: AssistantMessage, stopReason: "error" | "aborted", errorMessage: string): AssistantMessage {
  return { ...partial, content: [...partial.content], stopReason, errorMessage };
}

/** Runs the calls in order; once the run is stopped, the remaining calls get a "cancelled" result. */
async function runToolCalls(calls: readonly ToolCall[], input: TurnLoopInput): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  for (const call of calls) {
    if (input.signal.aborted) {
      results.push(await appendResult(call, ToolSet.cancelledResult(call), input));
      continue;
    }
    // The hooks and the tool share this object: a tool_call handler may change the arguments in place.
    const args = (call.arguments ??= {});
    input.emit({ type: "tool_start", toolCallId: call.id, toolName: call.name, args });
    input.hooks?.notify?.({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args });
    const verdict = await input.hooks?.toolCall?.({ type: "tool_call", toolCallId: call.id, toolName: call.name, input: args });
    let result = verdict?.block
      ? blockedResult(call, verdict.reason)
      : await input.tools.run(call, {
          cwd: input.sessionManager.getCwd(),
          signal: input.signal,
          limits: input.limits,
          allowShell: input.allowShell,
          outputDirectory: input.outputDirectory,
          processGroups: input.processGroups,
          onUpdate: (toolCallId, text) => {
            input.emit({ type: "tool_update", toolCallId, text });
            input.hooks?.notify?.({ type: "tool_execution_update", toolCallId, toolName: call.name, args, partialResult: { content: [{ type: "text", text }] } });
          },
        });
    const patch = await input.hooks?.toolResult?.({
      type: "tool_result",
      toolCallId: call.id,
      toolName: call.name,
      input: args,
      content: result.content,
      details: result.details,
      isError: result.isError,
    });
    if (patch) result = patched(result, patch);
    input.hooks?.notify?.({
      type: "tool_execution_end",
      toolCallId: call.id,
      toolName: call.name,
      result: { content: result.content, details: result.details },
      isError: result.isError,
    });
    results.push(await appendResult(call, result, input));
  }
  return results;
}

function blockedResult(call: ToolCall, reason: string | undefined): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: reason?.trim() ? reason : BLOCKED_TOOL_CALL_MESSAGE }],
    isError: true,
    timestamp: Date.now(),
  };
}

function patched(result: ToolResultMessage, patch: { content?: ToolResultMessage["content"]; details?: unknown; isError?: boolean }): ToolResultMessage {
  const next: ToolResultMessage = { ...result };
  if (patch.content !== undefined) next.content = patch.content;
  if (patch.details !== undefined) next.details = patch.details;
  if (patch.isError !== undefined) next.isError = patch.isError;
  return next;
}

async function appendResult(call: ToolCall, result: ToolResultMessage, input: TurnLoopInput): Promise<ToolResultMessage> {
  const recorded = await recordRunMessage(input, result);
  input.added?.push(recorded.message);
  const message = recorded.message as ToolResultMessage;
  input.emit({ type: "tool_end", toolCallId: call.id, result: message, entryId: recorded.entryId });
  return message;
}
