/**
 * Issue 9 point 7 in the real extension host and the real webview: a session with one odd field per
 * entry (a 20,000-character label and name, a long joined tool name, an empty role, a negative
 * `tokensBefore`, a long timestamp, an id with a control character) still draws, the webview
 * accepts the state, a malformed compaction answers with an error instead of "Loading…", and
 * Rename and Label refuse over-long input.
 */
import { strict as assert } from "node:assert";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import * as vscode from "vscode";
import { arborApi, hooks, messagesShownBy, samples, until, type HostApi } from "./host-helpers";

const T = "2026-01-01T00:00:00.000Z";
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const assistant = (content: unknown[]) => ({ role: "assistant", content, api: "openai-completions", provider: "test", model: "m", usage, stopReason: "stop", timestamp: 1 });
const user = (text: string, role = "user") => ({ role, content: text, timestamp: 1 });

function writeHostileSession(dir: string): string {
  const tools = Array.from({ length: 400 }, (_, i) => ({ type: "toolCall", id: `c${i}`, name: `tool_number_${i}`, arguments: {} }));
  const lines = [
    { type: "session", version: 3, id: "0199aaaa-0000-7000-8000-0000000000d7", timestamp: T, cwd: process.env.ARBOR_HOST_WORKSPACE },
    { type: "message", id: "b0000001", parentId: null, timestamp: T, message: user("first") },
    { type: "message", id: "b0000002", parentId: "b0000001", timestamp: T, message: assistant(tools) },
    { type: "message", id: "b0000003", parentId: "b0000002", timestamp: T, message: user("who am I", "") },
    { type: "compaction", id: "b0000004", parentId: "b0000003", timestamp: T, summary: { not: "text" }, firstKeptEntryId: "b0000002", tokensBefore: -5 },
    { type: "message", id: "b0000005", parentId: "b0000004", timestamp: "9".repeat(500), message: user("long timestamp") },
    { type: "label", id: "b0000006", parentId: "b0000005", timestamp: T, targetId: "b0000001", label: "L".repeat(20_000) },
    { type: "message", id: "odd\u0007id", parentId: "b0000006", timestamp: T, message: assistant([{ type: "text", text: "the entry with the odd id" }]) },
    { type: "session_info", id: "b0000008", parentId: "odd\u0007id", timestamp: T, name: "N".repeat(12_000) },
    { type: "message", id: "b0000009", parentId: "b0000008", timestamp: T, message: user("last") },
  ];
  const file = join(dir, "2026-01-01T00-00-00-000Z_0199aaaa-0000-7000-8000-0000000000d7.jsonl");
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  return file;
}

describe("one bad field never blanks the Conversation Tree (issue 9.7)", function () {
  this.timeout(60_000);
  let arbor: HostApi;
  let file: string;
  before(async () => {
    arbor = await arborApi();
    file = writeHostileSession(dirname(samples().mainFile));
  });

  it("the real webview draws a hostile session, and a malformed compaction shows an error, not Loading…", async () => {
    const { tree } = hooks(arbor);
    await vscode.commands.executeCommand("arbor.conversationTree.focus");
    await vscode.commands.executeCommand("arbor.resumeSession", file);
    const sm = hooks(arbor).currentSession!;
    assert.equal(sm.getSessionFile(), file);
    const problemsBefore = tree.webviewProblems.length;
    // The webview selects a revealed entry only once it holds the state: the selection coming back
    // proves the state message got through the webview's guards and was drawn.
    await until(() => {
      tree.reveal("b0000004");
      return tree.selectedEntryId === "b0000004";
    }, "the webview to draw the session and select the compaction", 20_000);
    // Selecting a compaction asks for its details; the malformed one is answered with an error.
    await until(() => tree.lastPosted.get("entryDetails")?.type === "entryDetails", "the details answer");
    const details = tree.lastPosted.get("entryDetails");
    assert.ok(details?.type === "entryDetails" && details.ok === false, JSON.stringify(details).slice(0, 300));
    assert.equal(details.entryId, "b0000004");
    assert.match(details.error, /compaction entry is malformed: its summary is not text; tokensBefore/);
    // The odd id crosses the boundary as a stand-in and comes back as the real one.
    await until(() => {
      tree.reveal("odd\u0007id");
      return tree.selectedEntryId === "odd\u0007id";
    }, "the entry with the odd id to be selectable");
    const dropped = tree.webviewProblems.slice(problemsBefore).filter((p) => /dropped/.test(p));
    assert.deepEqual(dropped, [], "the webview dropped no message");
    const state = tree.lastPosted.get("state");
    assert.ok(state?.type === "state" && state.session);
    assert.equal(state.session.entries.length, sm.getEntryCount(), "every entry was sent");
  });

  it("Label and Rename refuse input over the limit and write nothing", async () => {
    const s = samples();
    await vscode.commands.executeCommand("arbor.resumeSession", s.mainFile);
    const sm = hooks(arbor).currentSession!;
    await sm.flush();
    const before = readFileSync(s.mainFile, "utf8");
    const label = await messagesShownBy(() => vscode.commands.executeCommand("arbor.labelEntry", { entryId: s.main.firstUserId, label: "x".repeat(201) }));
    assert.match(label.errors.join("\n"), /Keep labels under 201 characters \(this one has 201\)/);
    const rename = await messagesShownBy(() => vscode.commands.executeCommand("arbor.renameSession", "n".repeat(5000)));
    assert.match(rename.errors.join("\n"), /Keep session names under 201 characters/);
    await sm.flush();
    assert.equal(readFileSync(s.mainFile, "utf8"), before, "nothing was written");
    assert.equal(sm.getSessionName(), s.mainName);
  });
});
