/**
 * Issue 9 point 7: one value outside the protocol's limits must not blank the Conversation Tree.
 * A real session file with one odd entry of each kind is opened by the real SessionManager; its
 * state message fails the (strict) guards as it is, and passes once clamped, with every other entry
 * untouched and the odd ones marked.
 */
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "../../src/core/session/session-manager";
import { clampSummary, clampText, detailsOf, SafeIds } from "../../src/protocol/clamp";
import { isEntrySummary, isHostToWebviewMessage } from "../../src/protocol/guards";
import { LIMITS, type HostToWebviewMessage, type TreeMessage } from "../../src/protocol/messages";
import { entryDetailsOf, sessionDataOf } from "../../src/extension/tree-session-data";
import { TreeHub } from "../../src/protocol/tree-host";
import { summarizeEntry } from "../../src/core/session/summarize";
import { makeTempDir } from "../support/temp-dir";
import { assistant, user } from "../support/messages";

const T = "2026-01-01T00:00:00.000Z";

/** What the host sends a webview for a session, under Arbor's "everything" filter (every entry), every row in one window. */
function treeMessages(sm: SessionManager): { hub: TreeHub; sent: HostToWebviewMessage[] } {
  const hub = new TreeHub({
    checkout: () => undefined,
    fork: () => undefined,
    label: () => undefined,
    copyText: () => undefined,
    forkReadOnly: () => undefined,
    details: (id, ids) => entryDetailsOf(sm, id, ids),
    log: () => undefined,
  }, "everything");
  hub.showSession(sessionDataOf(sm), "x".repeat(12_000), null);
  const sent: HostToWebviewMessage[] = [];
  const port = hub.connect((m) => sent.push(m));
  port.receive({ type: "ready" });
  return { hub, sent };
}

describe("clamping what the host sends (issue 9.7)", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  before(() => (tmp = makeTempDir()));
  after(() => tmp.cleanup());

  /** A session with one hostile entry of each kind among ordinary ones. */
  function hostileSession(): string {
    const manyTools = assistant("");
    manyTools.content = Array.from({ length: 400 }, (_, i) => ({ type: "toolCall" as const, id: `c${i}`, name: `tool_number_${i}`, arguments: {} }));
    const emptyRole = { ...user("who am I"), role: "" };
    const lines: unknown[] = [
      { type: "session", version: 3, id: "0199aaaa-0000-7000-8000-0000000000c7", timestamp: T, cwd: tmp.dir },
      { type: "message", id: "a0000001", parentId: null, timestamp: T, message: user("first") },
      { type: "message", id: "a0000002", parentId: "a0000001", timestamp: T, message: manyTools },
      { type: "message", id: "a0000003", parentId: "a0000002", timestamp: T, message: emptyRole },
      { type: "compaction", id: "a0000004", parentId: "a0000003", timestamp: T, summary: 42, firstKeptEntryId: "a0000002", tokensBefore: -5 },
      { type: "message", id: "a0000005", parentId: "a0000004", timestamp: "9".repeat(500), message: user("long timestamp") },
      { type: "label", id: "a0000006", parentId: "a0000005", timestamp: T, targetId: "a0000001", label: "L".repeat(20_000) },
      { type: "custom", id: "bad\u0007id", parentId: "a0000006", timestamp: T, customType: "x" },
      { type: "message", id: "a0000008", parentId: "bad\u0007id", timestamp: T, message: assistant("child of the odd id") },
      { type: "session_info", id: "a0000009", parentId: "a0000008", timestamp: T, name: "N".repeat(12_000) },
      { type: "message", id: "a000000a", parentId: "a0000009", timestamp: T, message: user("last") },
    ];
    const file = join(tmp.dir, "hostile.jsonl");
    writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    return file;
  }

  it("rows with one bad field per entry pass the guards clamped, every entry drawn, the odd ones marked", async () => {
    const sm = await SessionManager.open(hostileSession(), { readOnly: true });
    const raw = sm.getSummaries();
    assert.ok(raw.some((e) => !isEntrySummary(e)), "the fault: some summaries as they are would make the webview drop the message");
    const { hub, sent } = treeMessages(sm);
    const tree = sent.find((m): m is TreeMessage => m.type === "tree");
    assert.ok(tree && isHostToWebviewMessage(tree), "the message crosses the boundary");
    const rows = tree.window.rows;
    assert.equal(rows.length, tree.window.rowCount);
    assert.equal(rows.length, raw.length, "every entry is drawn");
    const ids = (hub as unknown as { ids: SafeIds }).ids;
    const marked = rows.filter((r) => r.entry.clamped).map((r) => ids.in(r.entry.id));
    // (a0000008 is marked too: its parent link now names the odd id's stand-in)
    assert.deepEqual(marked.sort(), ["a0000002", "a0000003", "a0000004", "a0000005", "a0000006", "a0000008", "bad\u0007id"].sort());
    // untouched entries are the very same objects, but for the search text, which stays in the host
    const searched = new Set(raw.filter((e) => e.searchText !== undefined).map((e) => e.id));
    for (const r of rows) {
      assert.equal(r.entry.searchText, undefined);
      if (!r.entry.clamped && !searched.has(r.entry.id)) assert.ok(raw.includes(r.entry));
    }
    // the odd id has a stand-in, used for its child's parent too, and maps back
    const odd = rows.find((r) => r.entry.type === "custom")!.entry;
    assert.match(odd.id, /^invalid-id-\d+$/);
    assert.equal(rows.find((r) => r.entry.id === "a0000008")!.entry.parentId, odd.id);
    assert.equal(ids.in(odd.id), "bad\u0007id");
    assert.equal(ids.out("bad\u0007id"), odd.id, "stable");
    // shortened text ends in an ellipsis, within the limits
    assert.equal(tree.session!.title.length, LIMITS.labelLength);
    assert.ok(tree.session!.title.endsWith("…"));
    assert.equal(rows.find((r) => r.entry.id === "a0000001")!.label!.length, LIMITS.labelLength);
    assert.equal(rows.find((r) => r.entry.id === "a0000003")!.entry.role, "(empty)");
    assert.equal(rows.find((r) => r.entry.id === "a0000004")!.entry.tokensBefore, undefined);
    assert.ok(rows.find((r) => r.entry.id === "a0000002")!.entry.toolName!.length <= LIMITS.nameLength);
    // the webview names the stand-in; the host acts on the real entry
    const port = hub.connect(() => undefined);
    port.receive({ type: "ready" });
    port.receive({ type: "select", sessionId: tree.session!.sessionId, id: odd.id, add: false });
    assert.deepEqual(hub.selection, ["bad\u0007id"]);
    await sm.close();
  });

  it("any garbage in a summary's fields comes out acceptable to the guards", () => {
    const values: unknown[] = ["", "x", "\u0000", "a".repeat(300), "b".repeat(2_000), "c".repeat(20_000), -1, 1.5, Number.NaN, Infinity, 7, true, null];
    let seed = 1;
    const pick = () => values[(seed = (seed * 48271) % 2147483647) % values.length];
    const ids = new SafeIds();
    for (let i = 0; i < 3000; i++) {
      const line: Record<string, unknown> = {
        type: ["message", "compaction", "branch_summary", "label", "custom", "model_change", "thinking_level_change", "custom_message", pick()][i % 9],
        id: typeof pick() === "string" ? pick() || "z" : "id",
        parentId: pick(),
        timestamp: pick(),
        message: { role: pick(), content: [{ type: "toolCall", name: pick() }, { type: "text", text: pick() }], toolName: pick(), stopReason: pick() },
        summary: pick(),
        tokensBefore: pick(),
        firstKeptEntryId: pick(),
        fromId: pick(),
        targetId: pick(),
        label: pick(),
        customType: pick(),
        provider: pick(),
        modelId: pick(),
        thinkingLevel: pick(),
      };
      if (typeof line.type !== "string") line.type = "odd";
      if (typeof line.id !== "string" || line.id === "") line.id = `e${i}`;
      const s = clampSummary(summarizeEntry(line, i), ids);
      assert.ok(isEntrySummary(s), `entry ${i}: ${JSON.stringify(s).slice(0, 300)}`);
    }
  });

  it("a malformed compaction or branch summary gets an error for the details pane, never silence", async () => {
    const ids = new SafeIds();
    const bad = detailsOf({ type: "compaction", summary: 42, tokensBefore: -5 }, () => "", ids);
    assert.equal(bad.ok, false);
    assert.match(!bad.ok ? bad.error : "", /compaction entry is malformed: its summary is not text; tokensBefore .*; firstKeptEntryId is missing/);
    const message = { type: "entryDetails" as const, requestId: "d1", entryId: "a0000004", ...bad };
    assert.ok(isHostToWebviewMessage(message), "the answer crosses the boundary");
    const branch = detailsOf({ type: "branch_summary", summary: "ok" }, () => "", ids);
    assert.match(!branch.ok ? branch.error : "", /fromId is missing/);
    const good = detailsOf({ type: "compaction", summary: "s", tokensBefore: 3, firstKeptEntryId: "a", details: { readFiles: ["a.ts", 5], modifiedFiles: "x" } }, () => "", ids);
    assert.equal(good.ok, false, "a details field of the wrong shape is reported too");
    const fine = detailsOf({ type: "compaction", summary: "s", tokensBefore: 3, firstKeptEntryId: "a", details: { readFiles: ["a.ts", 5] } }, () => "", ids);
    assert.deepEqual(fine, { ok: true, details: { kind: "compaction", summary: "s", tokensBefore: 3, firstKeptEntryId: "a", readFiles: ["a.ts"], modifiedFiles: [] } });
  });

  it("clampText never splits a surrogate pair and keeps short text as it is", () => {
    assert.equal(clampText("short", 10), "short");
    const cut = clampText("a😀😀😀", 3);
    assert.ok(cut.length <= 3);
    assert.doesNotMatch(cut, /[\ud800-\udbff](?![\udc00-\udfff])/);
    assert.ok(cut.endsWith("…"));
  });
});
