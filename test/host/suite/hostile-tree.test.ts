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
    // The webview reports the rows it shows only once it has drawn the host's message for that
    // session: a viewport report naming it proves the message got through the webview's guards.
    const shown = () => {
      const sent = tree.lastPosted.get("tree");
      const seen = tree.lastReceived.get("viewport");
      return sent?.type === "tree" && sent.session !== null && seen?.sessionId === sent.session.sessionId;
    };
    await until(shown, "the webview to draw the session", 20_000);
    tree.reveal("b0000004");
    assert.equal(tree.selectedEntryId, "b0000004");
    // Selecting a compaction asks for its details; the malformed one is answered with an error.
    // (An earlier test may have left another entry's answer behind: wait for this entry's.)
    await until(() => {
      const answer = tree.lastPosted.get("entryDetails");
      return answer?.type === "entryDetails" && answer.entryId === "b0000004";
    }, "the details answer");
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
    const state = tree.lastPosted.get("tree");
    assert.ok(state?.type === "tree" && state.session);
    assert.equal(state.session.entryCount, sm.getEntryCount(), "every entry is in the tree");
    assert.equal(state.window.rows.length, state.window.rowCount, "a session this small fits one window");
    assert.ok(state.window.rows.some((r) => r.entry.clamped), "the odd entries are drawn, marked");
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
