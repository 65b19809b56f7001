/**
 * Branch diff (issue 11.5), the pure part: the sides split at the deepest common entry, each side's
 * Markdown holds exactly its own entries (not the shared ones, not the other side's), and the
 * workspace summary lists what the side's tool calls and shell runs touched.
 */
import * as assert from "node:assert/strict";
import { branchMarkdown, compareBranches, workspaceEffects } from "../../src/core/branch-diff/branch-diff";
import { SessionManager } from "../../src/core/session/session-manager";
import type { AssistantMessage, ToolResultMessage } from "../../src/core/session/types";
import { buildTranscript } from "../../src/core/transcript";
import { assistant, user } from "../support/messages";

function toolTurn(calls: { id: string; name: string; args: Record<string, unknown> }[]): AssistantMessage {
  const m = assistant("");
  m.content = calls.map((c) => ({ type: "toolCall" as const, id: c.id, name: c.name, arguments: c.args }));
  m.stopReason = "toolUse";
  return m;
}

function result(id: string, name: string, text: string, isError = false): ToolResultMessage {
  return { role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError, timestamp: Date.now() };
}

/** A session that forks after a shared start: one side edits and tests, the other writes a new file. */
function forkedSession(): { sm: SessionManager; shared: string; left: string; right: string } {
  const sm = SessionManager.inMemory("/work");
  sm.appendMessage(user("SHARED-START fix the parser"));
  const shared = sm.appendMessage(assistant("SHARED-REPLY looking"));
  sm.appendMessage(user("LEFT-ONLY edit it in place"));
  sm.appendMessage(toolTurn([{ id: "r1", name: "read", args: { path: "src/parser.ts" } }, { id: "e1", name: "edit", args: { path: "src/parser.ts", oldText: "a", newText: "b" } }]));
  sm.appendMessage(result("r1", "read", "file text"));
  sm.appendMessage(result("e1", "edit", "edited"));
  sm.appendMessage(toolTurn([{ id: "b1", name: "bash", args: { command: "npm test -- --grep parser" } }]));
  sm.appendMessage(result("b1", "bash", "1 failing", true));
  const left = sm.appendMessage(assistant("LEFT-END the test still fails"));
  sm.branch(shared);
  sm.appendMessage(user("RIGHT-ONLY write a new parser"));
  sm.appendMessage(toolTurn([{ id: "w1", name: "write", args: { path: "src/parser2.ts", content: "export {}" } }, { id: "r2", name: "read", args: { path: "README.md" } }]));
  sm.appendMessage(result("w1", "write", "ok"));
  sm.appendMessage(result("r2", "read", "readme"));
  sm.appendMessage({ role: "bashExecution", command: "ls src", output: "parser2.ts", exitCode: 0, cancelled: false, truncated: false, timestamp: Date.now() } as never);
  const right = sm.appendMessage(assistant("RIGHT-END done"));
  return { sm, shared, left, right };
}

describe("branch diff", () => {
  it("splits the two paths at their deepest common entry", () => {
    const { sm, shared, left, right } = forkedSession();
    const c = compareBranches(sm, left, right);
    assert.equal(c.ancestorId, shared);
    assert.equal(c.left.entryId, left);
    assert.equal(c.right.entryId, right);
    assert.equal(c.left.path[0].parentId, shared);
    assert.equal(c.right.path[0].parentId, shared);
    assert.equal(c.left.path.at(-1)!.id, left);
    assert.equal(c.left.path.length, 7);
    assert.equal(c.right.path.length, 6);
  });

  it("writes each side's own entries as Markdown, not the shared ones or the other side's", () => {
    const { sm, left, right } = forkedSession();
    const c = compareBranches(sm, left, right);
    const l = branchMarkdown(sm, c, "left");
    const r = branchMarkdown(sm, c, "right");
    for (const text of ["LEFT-ONLY", "LEFT-END", "npm test -- --grep parser"]) {
      assert.ok(l.includes(text), `left has ${text}`);
      assert.ok(!r.includes(text), `right lacks ${text}`);
    }
    for (const text of ["RIGHT-ONLY", "RIGHT-END", "ls src"]) {
      assert.ok(r.includes(text), `right has ${text}`);
      assert.ok(!l.includes(text), `left lacks ${text}`);
    }
    // The shared start is named as the ancestor only, its text is on neither side.
    assert.ok(!l.includes("SHARED-START") && !r.includes("SHARED-START"));
    assert.match(l, /^# Branch to /);
    assert.match(l, /## User\n\nLEFT-ONLY edit it in place/);
    assert.match(l, /\*\*Tool call: edit\*\*/);
    assert.match(r, /## Shell/);
    // No times in headings: two sides' headings compare equal when their kinds do.
    assert.doesNotMatch(l, /\d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it("summarises what each side did to the workspace", () => {
    const { sm, left, right } = forkedSession();
    const c = compareBranches(sm, left, right);
    const l = workspaceEffects(buildTranscript(c.left.path));
    assert.deepEqual(l.read.map((e) => e.what), ["src/parser.ts"]);
    assert.deepEqual(l.edited.map((e) => e.what), ["src/parser.ts"]);
    assert.deepEqual(l.wrote, []);
    assert.deepEqual(l.commands, [{ what: "npm test -- --grep parser", failed: true }]);
    const r = workspaceEffects(buildTranscript(c.right.path));
    assert.deepEqual(r.wrote.map((e) => e.what), ["src/parser2.ts"]);
    assert.deepEqual(r.read.map((e) => e.what), ["README.md"]);
    assert.deepEqual(r.commands, [{ what: "ls src", failed: false }]);
    const text = branchMarkdown(sm, c, "right");
    assert.match(text, /### Wrote\n\n- src\/parser2\.ts/);
    assert.match(branchMarkdown(sm, c, "left"), /### Ran\n\n- npm test -- --grep parser \*\(failed\)\*/);
  });

  it("compares an entry with its own descendant: that side is empty", () => {
    const { sm, shared, left } = forkedSession();
    const c = compareBranches(sm, shared, left);
    assert.equal(c.ancestorId, shared);
    assert.equal(c.left.path.length, 0);
    assert.match(branchMarkdown(sm, c, "left"), /This entry is the common ancestor/);
    assert.match(branchMarkdown(sm, c, "left"), /\*Nothing: no file was read/);
  });

  it("refuses an unknown entry", () => {
    const { sm, left } = forkedSession();
    assert.throws(() => compareBranches(sm, left, "nope"), /No entry with id nope/);
  });

  it("keeps session text inert in its own lines: a hostile path cannot add headings or links", () => {
    const sm = SessionManager.inMemory("/work");
    const root = sm.appendMessage(user("start"));
    sm.appendMessage(toolTurn([{ id: "x", name: "write", args: { path: "a.md\n# Injected [link](http://x)" } }]));
    const a = sm.appendMessage(result("x", "write", "ok"));
    const c = compareBranches(sm, a, root);
    const text = branchMarkdown(sm, c, "left");
    assert.ok(!text.includes("\n# Injected"), text);
    assert.ok(text.includes("\\# Injected \\[link\\](http://x)"));
  });
});
