import * as assert from "node:assert/strict";
import { SessionManager } from "../../src/core/session/session-manager";
import type { AssistantMessage, ToolResultMessage } from "../../src/core/session/types";
import { arrayPath, buildTranscript, PathTranscript } from "../../src/core/transcript";
import { assistant, user } from "../support/messages";

function toolCallReply(ids: string[]): AssistantMessage {
  return { ...assistant(""), content: [{ type: "thinking", thinking: "let me look" }, ...ids.map((id) => ({ type: "toolCall" as const, id, name: "read", arguments: { path: `${id}.ts` } }))], stopReason: "toolUse" };
}

function result(id: string, text: string, isError = false): ToolResultMessage {
  return { role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text }], isError, timestamp: 5 };
}

describe("transcript of a path", () => {
  it("pairs each tool call with its result and keeps the reply's block order", () => {
    const sm = SessionManager.inMemory("/w");
    sm.appendMessage(user("read both"));
    sm.appendMessage(toolCallReply(["c1", "c2"]));
    sm.appendMessage(result("c2", "two"));
    sm.appendMessage(result("c1", "one", true));
    sm.appendMessage(assistant("done"));
    const items = buildTranscript(sm.getBranch());
    assert.deepEqual(items.map((i) => i.kind), ["user", "assistant", "assistant"]);
    const reply = items[1];
    assert.ok(reply.kind === "assistant");
    assert.deepEqual(reply.parts.map((p) => p.type), ["thinking", "toolCall", "toolCall"]);
    const [, c1, c2] = reply.parts;
    assert.ok(c1.type === "toolCall" && c2.type === "toolCall");
    assert.equal(c1.result?.isError, true);
    assert.equal((c1.result?.content[0] as { text: string }).text, "one");
    assert.equal((c2.result?.content[0] as { text: string }).text, "two");
  });

  it("knows which reply shows a tool result, and lets a result without its call stand alone", () => {
    const sm = SessionManager.inMemory("/w");
    sm.appendMessage(user("go"));
    sm.appendMessage(toolCallReply(["c1"]));
    sm.appendLabelChange(sm.getLeafId()!, "mid-turn bookkeeping");
    sm.appendMessage(result("c1", "ok"));
    sm.appendMessage(result("zz", "lost"));
    sm.appendMessage(result("c1", "again"));
    const path = sm.getBranch();
    const t = new PathTranscript(arrayPath(path));
    const kinds = path.map((_, i) => t.itemAt(i)?.kind ?? null);
    // user, reply (holding c1's first result), label, c1's result (shown in the reply), orphan, duplicate.
    assert.deepEqual(kinds, ["user", "assistant", null, null, "toolResult", "toolResult"]);
    assert.equal(t.ownerOfResult(3), 1);
    assert.equal(t.ownerOfResult(4), undefined);
    const reply = t.itemAt(1);
    assert.ok(reply?.kind === "assistant" && reply.parts[1]?.type === "toolCall");
    assert.equal((reply.parts[1].result?.content[0] as { text: string }).text, "ok");
  });

  it("shows bash runs, displayed custom messages and summaries, and leaves bookkeeping out", () => {
    const sm = SessionManager.inMemory("/w");
    const u = sm.appendMessage(user("hi"));
    sm.appendMessage(assistant("hello"));
    sm.appendMessage({ role: "bashExecution", command: "ls", output: "a\n", exitCode: 2, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 1 });
    sm.appendCustomMessageEntry("note", [{ type: "text", text: "shown" }, { type: "image", data: "AAAA", mimeType: "image/png" }], true);
    sm.appendCustomMessageEntry("hidden", "not shown", false);
    sm.appendCustomEntry("state", { x: 1 });
    sm.appendLabelChange(u, "start");
    sm.appendSessionInfo("named");
    sm.appendModelChange("p", "m");
    sm.appendThinkingLevelChange("high");
    sm.appendCompaction("the summary", u, 1234);
    const items = buildTranscript(sm.getBranch());
    assert.deepEqual(items.map((i) => i.kind), ["user", "assistant", "bash", "custom", "compaction"]);
    const bash = items[2];
    assert.ok(bash.kind === "bash" && bash.exitCode === 2 && bash.excludeFromContext);
    const custom = items[3];
    assert.ok(custom.kind === "custom" && custom.text === "shown" && custom.images.length === 1);
    const compaction = items[4];
    assert.ok(compaction.kind === "compaction" && compaction.tokensBefore === 1234 && compaction.firstKeptEntryId === u);
  });

  it("keeps a failed reply's error text", () => {
    const sm = SessionManager.inMemory("/w");
    sm.appendMessage(user("hi"));
    sm.appendMessage({ ...assistant(""), content: [], stopReason: "error", errorMessage: "HTTP 500: boom" });
    const items = buildTranscript(sm.getBranch());
    const reply = items[1];
    assert.ok(reply.kind === "assistant" && reply.errorMessage === "HTTP 500: boom" && reply.stopReason === "error");
  });
});
