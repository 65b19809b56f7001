/** The light per-entry view the tree draws: previews, tool data, markers. */
import * as assert from "node:assert/strict";
import { summarizeEntry, toPreview } from "../../src/core/session/summarize";
import type { SessionEntry } from "../../src/core/session/types";
import { assistant } from "../support/messages";

const base = { id: "aaaaaaaa", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };

describe("entry summaries", () => {
  it("previews are one line of at most 200 characters", () => {
    const p = toPreview(`  first\n\n  second\t${"x".repeat(1000)}`);
    assert.ok(p.startsWith("first second x"));
    assert.equal(p.length, 200);
    assert.ok(p.endsWith("…"));
    assert.equal(toPreview("short"), "short");
  });

  it("marks an assistant turn without text that ended normally (Pi's tree hides it), but not one with text or a failure", () => {
    const toolOnly = assistant("");
    toolOnly.content = [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }];
    toolOnly.stopReason = "toolUse";
    const s = summarizeEntry({ ...base, type: "message", message: toolOnly } as SessionEntry, 3);
    assert.equal(s.textless, true);
    assert.equal(s.toolName, "read");
    assert.equal(s.preview, "→ read");
    const thinkingOnly = { ...assistant(""), content: [{ type: "thinking" as const, thinking: "hmm" }, { type: "text" as const, text: "  \n" }] };
    assert.equal(summarizeEntry({ ...base, type: "message", message: thinkingOnly } as SessionEntry, 3).textless, true);
    const withText = assistant("let me look");
    withText.content.push({ type: "toolCall", id: "c2", name: "bash", arguments: {} });
    assert.equal(summarizeEntry({ ...base, type: "message", message: withText } as SessionEntry, 4).textless, undefined);
    for (const stopReason of ["error", "aborted", "length"] as const) {
      const failed = { ...toolOnly, stopReason, errorMessage: "boom" };
      const f = summarizeEntry({ ...base, type: "message", message: failed } as SessionEntry, 5);
      assert.equal(f.textless, undefined, stopReason);
      assert.equal(f.isError, stopReason === "error" ? true : undefined);
    }
  });

  it("carries what the tree needs for each entry type", () => {
    const c = summarizeEntry({ ...base, type: "compaction", summary: "## Goal\nx", firstKeptEntryId: "bbbbbbbb", tokensBefore: 1234 }, 2);
    assert.deepEqual([c.tokensBefore, c.firstKeptEntryId, c.preview], [1234, "bbbbbbbb", "## Goal x"]);
    const l = summarizeEntry({ ...base, type: "label", targetId: "bbbbbbbb", label: "keep" }, 2);
    assert.deepEqual([l.targetId, l.label], ["bbbbbbbb", "keep"]);
    const cleared = summarizeEntry({ ...base, type: "label", targetId: "bbbbbbbb" }, 2);
    assert.equal(cleared.label, undefined);
    const marker = summarizeEntry({ ...base, type: "custom", customType: "arbor.checkout" }, 2);
    assert.equal(marker.checkoutMarker, true);
    const unknown = summarizeEntry({ ...base, type: "hologram" } as unknown as SessionEntry, 2);
    assert.match(unknown.preview, /unknown entry type "hologram"/);
    const bash = summarizeEntry({ ...base, type: "message", message: { role: "bashExecution", command: "ls", output: "", exitCode: 2, cancelled: false, truncated: false, timestamp: 1 } } as SessionEntry, 2);
    assert.deepEqual([bash.preview, bash.isError], ["$ ls (exit 2)", true]);
  });
});

describe("toPreview", () => {
  /** The plain definition the fast version must equal. */
  function reference(text: string): string {
    const flat = text.slice(0, 400).replace(/\s+/g, " ").trim();
    return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
  }

  it("equals the regular-expression definition on random text with every kind of white space", () => {
    const pieces = ["a", "bc", "日本", "🌳", " ", "  ", "\n", "\t", "\r\n", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u200b", "\x01", "x".repeat(30)];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    for (let n = 0; n < 3000; n++) {
      let text = "";
      const len = next() % 120;
      for (let k = 0; k < len; k++) text += pieces[next() % pieces.length];
      assert.equal(toPreview(text), reference(text), JSON.stringify(text));
    }
    for (const text of ["", " ", "   a   ", "a".repeat(199), "a".repeat(200), "a".repeat(201), `${"a ".repeat(150)}`, `${" ".repeat(500)}x`]) {
      assert.equal(toPreview(text), reference(text), JSON.stringify(text));
    }
  });
});
