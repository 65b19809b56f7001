import * as assert from "node:assert/strict";
import { SessionManager } from "../../src/core/session/session-manager";
import { ChatTranscript, TAIL_ENTRIES } from "../../src/extension/chat/chat-transcript";
import { isChatToHostMessage, isHostToChatMessage } from "../../src/protocol/chat-guards";
import { assistant, user } from "../support/messages";
import { makeTempDir } from "../support/temp-dir";

describe("chat transcript (host side)", () => {
  it("updates the reply a late tool result belongs to", () => {
    const sm = SessionManager.inMemory("/w");
    sm.appendMessage(user("read it"));
    sm.appendMessage({ ...assistant(""), content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }], stopReason: "toolUse" });
    const t = new ChatTranscript();
    t.reset(sm);
    const changes: { kind: string; updated?: number[]; items?: unknown[] }[] = [];
    const sub = sm.onDidChange((c) => c.kind === "entries" && changes.push(t.onEntriesAppended(c.entries)));
    sm.appendMessage({ role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "contents" }], isError: false, timestamp: 1 });
    sub.dispose();
    assert.deepEqual(changes.map((c) => [c.kind, c.updated, c.items]), [["append", [1], [null]]]);
    const reply = t.itemAt(1);
    assert.ok(reply?.kind === "assistant" && reply.parts[0]?.type === "toolCall" && reply.parts[0].result?.isError === false);
  });

  it("clamps an entry with odd fields so the state message that carries it stays valid (issue 20.4)", () => {
    const sm = SessionManager.inMemory("/w");
    sm.appendMessage(user("before"));
    sm.appendMessage({ ...user("odd"), timestamp: "2026-01-01T00:00:00Z" as unknown as number });
    sm.appendMessage({ ...assistant(""), content: [{ type: "toolCall", id: "c".repeat(1500), name: "bash", arguments: ["ls"] as unknown as Record<string, unknown> }], stopReason: "toolUse" });
    sm.appendMessage(user("after"));
    const t = new ChatTranscript();
    const window = t.reset(sm);
    assert.equal(window.items.length, 4);
    assert.ok(isHostToChatMessage({ type: "itemsAppended", generation: window.generation, total: window.total, start: window.start, items: window.items }), "the items pass the guard");
  });

  it("extends the shown path with what is appended at its leaf, and sends only the new items", () => {
    const sm = SessionManager.inMemory("/w");
    sm.appendMessage(user("one"));
    const t = new ChatTranscript();
    const first = t.reset(sm);
    assert.equal(first.total, 1);
    const changes: unknown[] = [];
    const sub = sm.onDidChange((c) => c.kind === "entries" && changes.push(t.onEntriesAppended(c.entries)));
    sm.appendMessage(assistant("two"));
    sub.dispose();
    assert.equal(changes.length, 1);
    const change = changes[0] as { kind: string; start: number; items: ({ kind: string } | null)[] };
    assert.equal(change.kind, "append");
    assert.equal(change.start, 1);
    assert.deepEqual(change.items.map((i) => i?.kind ?? null), ["assistant"]);
    assert.equal(t.currentGeneration, first.generation);
  });

  it("starts a new generation when the leaf moves to another branch, and drops requests for the old one", () => {
    const sm = SessionManager.inMemory("/w");
    const u1 = sm.appendMessage(user("one"));
    sm.appendMessage(assistant("two"));
    const t = new ChatTranscript();
    const before = t.reset(sm);
    sm.checkout(u1);
    const update = t.onLeafMoved();
    assert.equal(update.kind, "reset");
    if (update.kind !== "reset") return;
    assert.equal(update.window.generation, before.generation + 1);
    assert.deepEqual(update.window.items, []);
    assert.equal(t.slice(before.generation, 0, 1), undefined);
    // An append on the new branch (a child of u1's parent) extends the new generation.
    const changes: { kind: string }[] = [];
    const sub = sm.onDidChange((c) => c.kind === "entries" && changes.push(t.onEntriesAppended(c.entries)));
    sm.appendMessage(user("one, again"));
    sub.dispose();
    assert.equal(changes.at(-1)?.kind, "append");
    assert.deepEqual(t.slice(t.currentGeneration, 0, t.length)!.map((i) => (i?.kind === "user" ? i.text : i?.kind ?? null)), ["one, again"]);
  });

  it("rebuilds once for a checkout: the marker written under the new leaf leaves the path as it is", async () => {
    const tmp = makeTempDir();
    const sm = await SessionManager.create("/w", { sessionDir: tmp.dir });
    try {
      sm.appendMessage(user("one"));
      const a1 = sm.appendMessage(assistant("two"));
      sm.appendMessage(user("three"));
      sm.appendMessage(assistant("four"));
      const t = new ChatTranscript();
      const before = t.reset(sm);
      const updates: string[] = [];
      const markers: string[] = [];
      const sub = sm.onDidChange((c) => {
        if (c.kind === "leaf") updates.push(t.onLeafMoved().kind);
        if (c.kind !== "entries") return;
        markers.push(...c.entries.filter((e) => e.type === "custom").map((e) => e.id));
        updates.push(t.onEntriesAppended(c.entries).kind);
      });
      sm.checkout(a1);
      sub.dispose();
      // The checkout wrote its marker (a custom entry under a1), and the transcript was rebuilt once.
      assert.equal(markers.length, 1);
      assert.equal(sm.getEntry(markers[0]!)?.parentId, a1);
      assert.deepEqual(updates, ["reset", "none"]);
      assert.equal(t.currentGeneration, before.generation + 1);
      assert.deepEqual(t.slice(t.currentGeneration, 0, t.length)!.map((i) => (i?.kind === "user" ? i.text : i?.kind ?? null)), ["one", "assistant"]);
      await sm.flush();
    } finally {
      await sm.close();
      tmp.cleanup();
    }
  });

  it("sends the tail of a long path, serves earlier items by range, and reads only the entries it shows", () => {
    const sm = SessionManager.inMemory("/w");
    for (let i = 0; i < 300; i++) sm.appendMessage(i % 2 ? assistant(`a${i}`) : user(`u${i}`));
    const read = new Set<string>();
    const getEntry = sm.getEntry.bind(sm);
    sm.getEntry = (id: string) => {
      read.add(id);
      return getEntry(id);
    };
    const t = new ChatTranscript();
    const w = t.reset(sm);
    assert.equal(w.total, 300);
    assert.equal(w.items.length, TAIL_ENTRIES);
    assert.equal(w.start, 300 - TAIL_ENTRIES);
    assert.ok(read.size <= TAIL_ENTRIES + 1, `read ${read.size} entries for a tail of ${TAIL_ENTRIES}`);
    const early = t.slice(w.generation, 0, 10)!;
    assert.equal(early.length, 10);
    assert.equal(early[0]?.kind === "user" && early[0].text, "u0");
    assert.ok(isHostToChatMessage({ type: "transcriptReset", transcript: w }));
  });
});

describe("chat protocol guards", () => {
  it("accept what the host and the webview send, and reject what they must not", () => {
    assert.ok(isChatToHostMessage({ type: "send", text: "hi" }));
    assert.ok(isChatToHostMessage({ type: "requestItems", generation: 2, start: 0, end: 100 }));
    assert.equal(isChatToHostMessage({ type: "requestItems", generation: 2, start: 10, end: 5 }), false);
    assert.equal(isChatToHostMessage({ type: "requestItems", generation: 2, start: 0, end: 1_000_000 }), false);
    assert.equal(isChatToHostMessage({ type: "openLink", href: "javascript:alert(1)" }), false);
    assert.equal(isChatToHostMessage({ type: "openLink", href: "command:workbench.action.terminal.new" }), false);
    assert.ok(isChatToHostMessage({ type: "openLink", href: "https://example.com" }));
    assert.equal(isChatToHostMessage({ type: "setThinkingLevel", level: "ultra" }), false);
    assert.equal(isChatToHostMessage({ type: "send", text: "x".repeat(1_000_001) }), false);
    assert.ok(isChatToHostMessage({ type: "insertCode", text: "const a = 1;" }));
    assert.equal(isChatToHostMessage({ type: "insertCode", text: 42 }), false);
    assert.equal(isHostToChatMessage({ type: "itemsAppended", generation: 1, total: 1, start: 0, items: [{ kind: "user", entryId: "a", text: 5, images: [], timestamp: 1 }] }), false);
    assert.equal(isHostToChatMessage({ type: "itemsAppended", generation: 1, total: 1, start: 0, items: [{ kind: "script", entryId: "a", timestamp: 1 }] }), false);
    assert.equal(isHostToChatMessage({ type: "transcriptReset", transcript: { generation: 1, total: 1, start: 1, items: [{ kind: "user", entryId: "a", text: "x", images: [], timestamp: 1 }] } }), false);
  });
});
