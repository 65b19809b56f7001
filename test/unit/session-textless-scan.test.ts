/**
 * The "turn without text" mark (Pi's tree hides such assistant turns unless they are the leaf) is
 * read from the bytes when a session is opened, so that the tree's filters never read a body. It
 * must equal what the full parse gives: on hand-made shapes, on many random assistant messages
 * (white space of every kind, escapes, odd block shapes, every stop reason), through the loader on
 * a fresh open and through the reopen index.
 */
import * as assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { LineHead, scanLine } from "../../src/core/session/json-scan";
import { SessionManager } from "../../src/core/session/session-manager";
import { scannedTextless } from "../../src/core/session/textless-scan";
import { isTextlessTurn } from "../../src/core/tree/search-text";
import { createRng } from "../support/random-session";
import { makeTempDir } from "../support/temp-dir";

/** What the loader's fast path decides for one line: the mark, or undefined (it parses the line instead). */
function fromBytes(line: string): boolean | undefined {
  const buf = Buffer.from(line, "utf8");
  const head = new LineHead();
  assert.ok(scanLine(buf, undefined, 0, buf.length, head), `not plain: ${line.slice(0, 200)}`);
  return scannedTextless(buf, head);
}

/** JSON with a space around every token (the scanner's other common form). */
function spaced(value: unknown): string {
  if (Array.isArray(value)) return `[ ${value.map(spaced).join(" , ")} ]`;
  if (value !== null && typeof value === "object") {
    return `{ ${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)} : ${spaced(v)}`)
      .join(" , ")} }`;
  }
  return JSON.stringify(value);
}

function lineOf(message: unknown, id = "a1", form: (v: unknown) => string = JSON.stringify): string {
  return form({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message });
}

/** Texts around the edge of "visible": every kind of white space JavaScript's trim removes, and some it does not. */
const TEXTS = ["", " ", "\n", "\t\r\n ", "\f", "\u000b", "\u00a0", "\u1680", "\u2000\u200a", "\u2028\u2029", "\u202f", "\u205f", "\u3000", "\ufeff", " \u00a0\n", "\u200b", "\u0085", "\b", "\\", '"', "/", "x", "  x", "\n\nHello", "é", "🌳", " 🌳", "\u0000", "\u001f"];
const STOPS = [undefined, null, "stop", "toolUse", "error", "aborted", "length", "", "Stop"];

function randomBlock(rng: ReturnType<typeof createRng>): unknown {
  switch (rng.int(8)) {
    case 0:
    case 1:
    case 2:
      return { type: "text", text: rng.pick(TEXTS) + (rng.chance(0.3) ? rng.pick(TEXTS) : "") };
    case 3:
      return { type: "toolCall", id: "c1", name: "edit", arguments: { path: "a.ts", oldText: rng.pick(TEXTS), newText: "{[\"x\"]}" } };
    case 4:
      return { type: "thinking", thinking: rng.pick(TEXTS), thinkingSignature: "sig" };
    case 5:
      return { text: rng.pick(TEXTS) }; // no type
    case 6:
      return { type: "text", text: rng.pick([5, null, true, ["x"], { t: "x" }]) };
    default:
      return rng.pick(["str", 5, null, [], { type: "image", data: "AAAA", mimeType: "image/png" }]);
  }
}

describe("turns without text, read from the bytes", () => {
  it("agrees with the full parse on hand-made shapes, and declines what only a parse can decide", () => {
    const agree = [
      { role: "assistant", content: [{ type: "toolCall", id: "c", name: "bash", arguments: { command: "ls" } }], stopReason: "toolUse" },
      { role: "assistant", content: [{ type: "text", text: "   \n" }, { type: "toolCall", id: "c", name: "bash", arguments: {} }], stopReason: "toolUse" },
      { role: "assistant", content: [{ type: "text", text: "done" }], stopReason: "stop" },
      { role: "assistant", content: [{ type: "thinking", thinking: "hmm" }], stopReason: "stop" },
      { role: "assistant", content: [], stopReason: "error", errorMessage: "boom" },
      { role: "assistant", content: [], stopReason: "aborted" },
      { role: "assistant", content: [] },
      { role: "assistant", content: "  " },
      { role: "assistant", content: " text " },
      { role: "assistant", content: null, stopReason: null },
      { role: "assistant", content: { type: "text", text: "x" } },
      { role: "assistant", stopReason: "stop" },
      { role: "assistant", content: [{ text: "x", type: "text" }] },
      { role: "assistant", content: [{ type: "text", text: "\u00a0\u2028" }, { type: "text", text: "\u200b" }] },
    ];
    for (const message of agree) {
      for (const form of [JSON.stringify, spaced]) {
        const line = lineOf(message, "a1", form);
        assert.equal(fromBytes(line), isTextlessTurn(message), line);
      }
    }
    const declined = [
      '{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"t\\u0065xt","text":"x"}],"stopReason":"stop"}}',
      '{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"text","t\\u0065xt":"x"}],"stopReason":"stop"}}',
      '{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"text","text":"","text":"x"}],"stopReason":"stop"}}',
      '{"type":"message","id":"a","message":{"role":"assistant","content":[],"stopReason":"\\u0073top"}}',
      '{"type":"message","id":"a","message":{"role":"assistant","content":[],"stopReason":0}}',
    ];
    for (const line of declined) assert.equal(fromBytes(line), undefined, line);
    // Each declined line is still decided right: by the parse, through the loader (below).
  });

  it("agrees with the full parse on thousands of random assistant messages, and decides most of them itself", () => {
    const rng = createRng(424242);
    let decided = 0;
    const total = 4000;
    for (let n = 0; n < total; n++) {
      const blocks = Array.from({ length: rng.int(4) }, () => randomBlock(rng));
      const roll = rng.int(10);
      const content = roll === 0 ? rng.pick(TEXTS) : roll === 1 ? rng.pick([null, 7, { type: "text", text: "x" }, undefined]) : blocks;
      const message = { role: "assistant", content, stopReason: rng.pick(STOPS), provider: "p", model: "m", usage: { input: 1, output: 2 } };
      const line = lineOf(message, `a${n}`, rng.chance(0.5) ? JSON.stringify : spaced);
      const bytes = fromBytes(line);
      const parsed = (JSON.parse(line) as { message: unknown }).message;
      if (bytes === undefined) continue;
      decided++;
      assert.equal(bytes, isTextlessTurn(parsed), line);
    }
    assert.ok(decided > total * 0.9, `decided ${decided} of ${total}`);
  });

  it("marks the same entries through the loader, on a fresh open and through the reopen index", async () => {
    const tmp = makeTempDir();
    try {
      const rng = createRng(99);
      const lines = [JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/w" })];
      const expected: boolean[] = [];
      let parent: string | null = null;
      for (let n = 0; n < 600; n++) {
        const id = `e${n}`;
        const message = n % 3 === 0
          ? { role: "user", content: "go", timestamp: 1 }
          : { role: "assistant", content: Array.from({ length: rng.int(4) }, () => randomBlock(rng)), stopReason: rng.pick(STOPS), timestamp: 1 };
        // Some lines only a parse can read: the loader must decide those the same way.
        let line = JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-01T00:00:00.000Z", message });
        if (n % 50 === 7) line = line.replace('"stopReason":"', '"stopReason":"\\u0020').replace('"\\u0020', '"'); // same value, written escaped
        if (n % 50 === 9) line = line.replace('"type":"text"', '"type":"t\\u0065xt"');
        lines.push(line);
        expected.push(isTextlessTurn((JSON.parse(line) as { message: unknown }).message));
        parent = id;
      }
      const file = join(tmp.dir, "s.jsonl");
      writeFileSync(file, `${lines.join("\n")}\n`);
      const index = { dir: join(tmp.dir, "index"), minBytes: 0 };
      for (const round of ["fresh", "reopen"]) {
        const sm = await SessionManager.open(file, { readOnly: true, index });
        if (round === "reopen") assert.equal(sm.getIndexUse(), "unchanged");
        const source = sm.getTreeSource();
        assert.equal(source.size, expected.length);
        for (let i = 0; i < expected.length; i++) {
          assert.equal(source.isTextless(i), expected[i], `${round}: entry ${i}`);
          assert.equal(sm.getSummaries()[i]!.textless === true, expected[i], `${round}: summary ${i}`);
        }
        await sm.whenIndexSaved();
        await sm.close();
      }
    } finally {
      tmp.cleanup();
    }
  });
});
