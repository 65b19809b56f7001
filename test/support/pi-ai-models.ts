/**
 * Test helpers around pi-ai: a local OpenAI-compatible model for the scripted server, a provider over
 * it, and the request body pi-ai itself builds for a context (the reference side of wire tests).
 */
import type { Context, SimpleStreamOptions } from "@mariozechner/pi-ai" with { "resolution-mode": "import" };
import { customModel, StaticModelSource, type CustomModelSpec } from "../../src/core/models/custom-models";
import type { PiModel } from "../../src/core/models/pi-ai-modules";
import { PiAiProvider, type PiAiProviderOptions } from "../../src/core/models/pi-ai-provider";
import type { LlmMessage } from "../../src/core/session/types";

/** An OpenAI-compatible model served by the scripted server at `baseUrl` (provider "local" unless given). */
export function localModel(baseUrl: string, spec: Partial<CustomModelSpec> = {}): PiModel {
  return customModel({ provider: "local", id: "scripted-model", api: "openai-completions", baseUrl, ...spec });
}

/** A provider over fixed models that sends `apiKey`, never retries (a scripted error is one reply) and takes other options. */
export function localProvider(models: PiModel[], options: Partial<PiAiProviderOptions> & { apiKey?: string } = {}): PiAiProvider {
  const { apiKey = "test-key", ...rest } = options;
  return new PiAiProvider({
    id: models[0]?.provider ?? "local",
    models: new StaticModelSource(models),
    resolveAuth: async () => ({ ok: true, apiKey }),
    maxRetries: 0,
    ...rest,
  });
}

/**
 * The request body pi-ai builds for this model, context and options, captured before anything is sent
 * (its `onPayload` hook; the call is then aborted). What Arbor sends must equal it.
 */
export async function piAiPayload(model: PiModel, context: { systemPrompt?: string; messages: LlmMessage[]; tools?: unknown[] }, options: SimpleStreamOptions = {}): Promise<Record<string, unknown>> {
  const { streamSimple } = await import("@mariozechner/pi-ai");
  const controller = new AbortController();
  let payload: Record<string, unknown> | undefined;
  const stream = streamSimple(model, context as Context, {
    apiKey: "reference-key",
    ...options,
    signal: controller.signal,
    onPayload: (params) => {
      payload = JSON.parse(JSON.stringify(params)) as Record<string, unknown>;
      controller.abort();
      return undefined;
    },
  });
  await stream.result();
  if (!payload) throw new Error("pi-ai built no payload");
  return payload;
}
