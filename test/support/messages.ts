import type { AssistantMessage, UserMessage } from "../../src/core/session/types";

/** Message builders for tests. */
export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: Date.now() };
}

export function assistant(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "test",
    model: "m1",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

