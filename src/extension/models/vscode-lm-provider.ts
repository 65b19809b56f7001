import * as vscode from "vscode";
import { AssistantMessageBuilder } from "../../core/agent/providers/assistant-message-builder";
import { ABORTED_ERROR_MESSAGE, type ModelInfo, type ModelProvider, type ModelRequest, type StreamEvent } from "../../core/agent/providers/provider";
import { toChatMessages, toChatTools } from "./vscode-lm-messages";

/** The provider id (and `api`) Arbor records for VS Code's own chat models. */
export const VSCODE_LM_PROVIDER = "vscode-lm";

/** What the user sees when VS Code has no chat model to offer. */
export const NO_VSCODE_MODELS_MESSAGE =
  "VS Code has no chat models to offer. Install and sign in to an extension that provides them (GitHub Copilot Chat, for one), or add a model with an API key or a local server instead.";

/** Arbor's description of a VS Code chat model. */
export function describeChatModel(model: vscode.LanguageModelChat): ModelInfo {
  return {
    provider: VSCODE_LM_PROVIDER,
    id: model.id,
    name: model.vendor && !model.name.toLowerCase().includes(model.vendor.toLowerCase()) ? `${model.name} (${model.vendor})` : model.name,
    contextWindow: model.maxInputTokens,
    supportsThinking: false,
    thinkingLevels: ["off"],
    supportsImages: false,
    api: VSCODE_LM_PROVIDER,
  };
}

/**
 * The `vscode.lm` backend: every chat model the user has in VS Code (Copilot's and any other
 * extension's), with tool calling. The API wants models chosen in response to a user action, so this
 * provider looks models up only when asked to list them (a picker the user opened) or to stream (a
 * prompt the user sent). Using another extension's model may ask the user's consent the first time.
 */
export class VsCodeLmProvider implements ModelProvider {
  readonly id = VSCODE_LM_PROVIDER;

  /** Every chat model VS Code offers now. Call it only in response to a user action. */
  async listModels(): Promise<ModelInfo[]> {
    return (await vscode.lm.selectChatModels()).map(describeChatModel);
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const builder = new AssistantMessageBuilder({ api: VSCODE_LM_PROVIDER, provider: VSCODE_LM_PROVIDER, model: request.model.id });
    if (signal?.aborted) {
      yield builder.fail("aborted", ABORTED_ERROR_MESSAGE);
      return;
    }
    const cancellation = new vscode.CancellationTokenSource();
    const forwardAbort = (): void => cancellation.cancel();
    signal?.addEventListener("abort", forwardAbort, { once: true });
    try {
      const [model] = await vscode.lm.selectChatModels({ id: request.model.id });
      if (!model) {
        yield builder.fail("error", `The VS Code chat model "${request.model.id}" is not available now. ${NO_VSCODE_MODELS_MESSAGE}`);
        return;
      }
      const response = await model.sendRequest(
        toChatMessages(request.systemPrompt, request.messages),
        { tools: toChatTools(request.tools), toolMode: vscode.LanguageModelChatToolMode.Auto, justification: "Arbor sends your prompt and the session's context to run the agent." },
        cancellation.token,
      );
      yield { type: "start" };
      for await (const part of response.stream) {
        if (signal?.aborted) break;
        if (part instanceof vscode.LanguageModelTextPart) {
          const event = builder.appendText(part.value);
          if (event) yield event;
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          yield* builder.appendToolCall(part.callId, { id: part.callId, name: part.name, argumentsDelta: JSON.stringify(part.input ?? {}) });
        }
      }
      if (signal?.aborted) {
        yield builder.fail("aborted", ABORTED_ERROR_MESSAGE);
        return;
      }
      yield* builder.finish(builder.hasToolCalls() ? "toolUse" : "stop");
    } catch (error) {
      yield signal?.aborted ? builder.fail("aborted", ABORTED_ERROR_MESSAGE) : builder.fail("error", describeLmError(error));
    } finally {
      signal?.removeEventListener("abort", forwardAbort);
      cancellation.cancel();
      cancellation.dispose();
    }
  }
}

/** The error text recorded for a failed VS Code model call, in words the user can act on. */
export function describeLmError(error: unknown): string {
  if (error instanceof vscode.LanguageModelError) {
    if (error.code === vscode.LanguageModelError.NoPermissions.name) {
      return `Arbor may not use this VS Code chat model: the permission was refused or not given (${error.message}). Run "Arbor: Select Model..." and allow it when VS Code asks.`;
    }
    if (error.code === vscode.LanguageModelError.Blocked.name) return `The VS Code chat model refused the request (blocked or over its quota): ${error.message}`;
    if (error.code === vscode.LanguageModelError.NotFound.name) return `The VS Code chat model is gone: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}
