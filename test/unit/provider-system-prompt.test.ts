import * as assert from "node:assert/strict";
import type { AssistantMessage, LlmMessage } from "../../src/core/session/types";
import { createEmptyUsage } from "../../src/core/agent/providers/provider";
import {
  FOLDED_SYSTEM_PROMPT_CLOSE,
  FOLDED_SYSTEM_PROMPT_OPEN,
  foldSystemPrompt,
  formatFoldedSystemPrompt,
} from "../../src/core/agent/providers/system-prompt";

const PROMPT = "You are Arbor's agent.\nUse the tools.";

describe("foldSystemPrompt", () => {
  it("puts the delimited instructions in front of a first user message given as a string", () => {
    const messages: LlmMessage[] = [{ role: "user", content: "Fix the bug", timestamp: 5 }];
    const folded = foldSystemPrompt(PROMPT, messages);
    assert.equal(folded.length, 1);
    const first = folded[0];
    assert.equal(first.role, "user");
    assert.equal(first.role === "user" && first.content, `${formatFoldedSystemPrompt(PROMPT)}\n\nFix the bug`);
    assert.equal(first.timestamp, 5);
  });

  it("wraps the prompt between the open and close tags, with the prompt text unchanged", () => {
    const block = formatFoldedSystemPrompt(PROMPT);
    assert.ok(block.startsWith(`${FOLDED_SYSTEM_PROMPT_OPEN}\n`));
    assert.ok(block.endsWith(`\n${PROMPT}\n${FOLDED_SYSTEM_PROMPT_CLOSE}`));
  });

  it("adds one text block in front of a block list and keeps images in place", () => {
    const messages: LlmMessage[] = [
      {
        role: "user",
        content: [
          { type: "image", data: "AAA", mimeType: "image/png" },
          { type: "text", text: "What is this?" },
        ],
        timestamp: 1,
      },
    ];
    const folded = foldSystemPrompt(PROMPT, messages);
    const first = folded[0];
    assert.ok(first.role === "user" && Array.isArray(first.content));
    assert.deepEqual(first.content, [
      { type: "text", text: `${formatFoldedSystemPrompt(PROMPT)}\n\n` },
      { type: "image", data: "AAA", mimeType: "image/png" },
      { type: "text", text: "What is this?" },
    ]);
  });

  it("puts a user message holding only the instructions first when the conversation starts otherwise", () => {
    const reply: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text: "Summary so far" }],
      api: "a",
      provider: "p",
      model: "m",
      usage: createEmptyUsage(),
      stopReason: "stop",
      timestamp: 9,
    };
    const folded = foldSystemPrompt(PROMPT, [reply]);
    assert.deepEqual(folded, [{ role: "user", content: formatFoldedSystemPrompt(PROMPT), timestamp: 9 }, reply]);
    const fromEmpty = foldSystemPrompt(PROMPT, []);
    assert.equal(fromEmpty.length, 1);
    assert.equal(fromEmpty[0].role === "user" && fromEmpty[0].content, formatFoldedSystemPrompt(PROMPT));
  });

  it("changes nothing without a prompt, and never changes its input", () => {
    const messages: LlmMessage[] = [
      { role: "user", content: "one", timestamp: 1 },
      { role: "user", content: "two", timestamp: 2 },
    ];
    const snapshot = JSON.stringify(messages);
    assert.deepEqual(foldSystemPrompt(undefined, messages), messages);
    assert.deepEqual(foldSystemPrompt("", messages), messages);
    const folded = foldSystemPrompt(PROMPT, messages);
    assert.equal(JSON.stringify(messages), snapshot);
    assert.equal(folded[1], messages[1], "later messages pass through as they are");
  });
});
