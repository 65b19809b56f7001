import * as assert from "node:assert/strict";
import type { AssistantMessage, LlmMessage, ToolResultMessage } from "../../src/core/session/types";
import {
  convertToChatMessages,
  IMAGE_OMITTED_TEXT,
  MISSING_TOOL_RESULT_TEXT,
  TOOL_IMAGES_FOLLOW_TEXT,
  TOOL_IMAGES_INTRO_TEXT,
} from "../../src/core/agent/providers/openai-messages";
import { createEmptyUsage } from "../../src/core/agent/providers/provider";

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "stop"): AssistantMessage {
  return { role: "assistant", content, api: "a", provider: "p", model: "m", usage: createEmptyUsage(), stopReason, timestamp: 1 };
}

function toolResult(toolCallId: string, content: ToolResultMessage["content"]): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "t", content, isError: false, timestamp: 1 };
}

const call = (id: string) => ({ type: "toolCall" as const, id, name: "t", arguments: { id } });
const user = (content: string): LlmMessage => ({ role: "user", content, timestamp: 1 });

describe("convertToChatMessages", () => {
  it("answers a tool call that has no result before the next user turn", () => {
    const out = convertToChatMessages(undefined, [user("go"), assistant([call("c1"), call("c2")], "toolUse"), toolResult("c2", [{ type: "text", text: "two" }]), user("next")]);
    assert.deepEqual(out.slice(2), [
      { role: "tool", tool_call_id: "c2", content: "two" },
      { role: "tool", tool_call_id: "c1", content: MISSING_TOOL_RESULT_TEXT },
      { role: "user", content: "next" },
    ]);
  });

  it("answers the tool calls of a conversation that ends mid-turn", () => {
    const out = convertToChatMessages(undefined, [user("go"), assistant([call("c1")], "toolUse")]);
    assert.deepEqual(out[out.length - 1], { role: "tool", tool_call_id: "c1", content: MISSING_TOOL_RESULT_TEXT });
  });

  it("leaves out assistant replies that failed or were aborted, and results that answer nothing", () => {
    const out = convertToChatMessages(undefined, [
      user("a"),
      assistant([{ type: "text", text: "partial" }, call("gone")], "aborted"),
      toolResult("gone", [{ type: "text", text: "orphan result" }]),
      assistant([{ type: "text", text: "boom" }], "error"),
      user("b"),
    ]);
    assert.deepEqual(out, [
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ]);
  });

  it("never sends thinking, and drops an assistant message left with nothing to say", () => {
    const out = convertToChatMessages(undefined, [user("a"), assistant([{ type: "thinking", thinking: "secret" }, { type: "text", text: "  " }]), user("b")]);
    assert.deepEqual(out, [
      { role: "user", content: "a" },
      { role: "user", content: "b" },
    ]);
    assert.ok(!JSON.stringify(out).includes("secret"));
  });

  it("moves images from tool results into one user message after the tool messages", () => {
    const out = convertToChatMessages(undefined, [
      user("shoot"),
      assistant([call("c1"), call("c2")], "toolUse"),
      toolResult("c1", [{ type: "image", data: "AAA", mimeType: "image/png" }]),
      toolResult("c2", [{ type: "text", text: "caption" }, { type: "image", data: "BBB", mimeType: "image/jpeg" }]),
    ]);
    assert.deepEqual(out.slice(2), [
      { role: "tool", tool_call_id: "c1", content: TOOL_IMAGES_FOLLOW_TEXT },
      { role: "tool", tool_call_id: "c2", content: "caption" },
      {
        role: "user",
        content: [
          { type: "text", text: TOOL_IMAGES_INTRO_TEXT },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAA" } },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,BBB" } },
        ],
      },
    ]);
  });

  it("replaces images with a note for a model that cannot take them", () => {
    const out = convertToChatMessages(
      undefined,
      [{ role: "user", content: [{ type: "text", text: "see" }, { type: "image", data: "AAA", mimeType: "image/png" }], timestamp: 1 }],
      { supportsImages: false },
    );
    assert.deepEqual(out, [{ role: "user", content: [{ type: "text", text: "see" }, { type: "text", text: IMAGE_OMITTED_TEXT }] }]);
  });

  it("joins several text blocks of an assistant reply into one string", () => {
    const out = convertToChatMessages("sys", [user("a"), assistant([{ type: "text", text: "one " }, { type: "text", text: "two" }])]);
    assert.deepEqual(out, [
      { role: "system", content: "sys" },
      { role: "user", content: "a" },
      { role: "assistant", content: "one two" },
    ]);
  });
});
