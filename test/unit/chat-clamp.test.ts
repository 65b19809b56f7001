/**
 * One odd field must not blank the chat (issue 20.4): every transcript item the host sends is
 * clamped within the chat protocol's limits, so the strict guards accept the state message that
 * carries it, the structured clone and JSON.stringify take it, and the other items are untouched.
 * The transcript builder is fuzzed with random entries from the whole session format, odd fields
 * included: it must not throw, and every item it makes must pass the guards once clamped.
 */
import * as assert from "node:assert/strict";
import { buildTranscript, type TranscriptItem } from "../../src/core/transcript";
import type { SessionEntry } from "../../src/core/session/types";
import { clampTranscriptItem, MAX_NESTING } from "../../src/protocol/chat-clamp";
import { isHostToChatMessage, isTranscriptItem } from "../../src/protocol/chat-guards";
import { chatState, replyItem, userItem } from "../support/chat-fixtures";
import { createRng, type Rng } from "../support/random-session";

function deep(levels: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < levels; i++) v = { a: [v] };
  return v;
}

const reply = replyItem("a1", "hi") as Extract<TranscriptItem, { kind: "assistant" }>;
const ODD: [string, TranscriptItem][] = [
  ["a string timestamp", { ...userItem("u1", "x"), timestamp: "2026-01-01T00:00:00Z" as unknown as number }],
  ["an id of 300 characters", userItem("u".repeat(300), "x")],
  ["an id with control characters", userItem("ab\u001b[2Jcd", "x")],
  ["a tool-call id of 1,500 characters", { ...reply, parts: [{ type: "toolCall", id: "c".repeat(1500), name: "bash", arguments: { command: "ls" } }] }],
  ["arguments that are an array", { ...reply, parts: [{ type: "toolCall", id: "c1", name: "bash", arguments: ["ls"] as unknown as Record<string, unknown> }] }],
  ["arguments that are a string", { ...reply, parts: [{ type: "toolCall", id: "c1", name: "bash", arguments: "ls" as unknown as Record<string, unknown> }] }],
  ["a usage without its numbers", { ...reply, usage: { input: 5 } as unknown as typeof reply.usage }],
  ["arguments nested 100,000 deep", { ...reply, parts: [{ type: "toolCall", id: "c1", name: "bash", arguments: { x: deep(100_000) } }] }],
  ["result details nested 100,000 deep", { ...reply, parts: [{ type: "toolCall", id: "c1", name: "edit", arguments: {}, result: { entryId: "t1", content: [], isError: false, details: deep(100_000) } }] }],
  ["an unknown stop reason", { ...reply, stopReason: "exploded" as unknown as typeof reply.stopReason }],
];

describe("chat items clamped within the protocol's limits", () => {
  for (const [what, item] of ODD) {
    it(`keeps the chat's state message valid with ${what} in one item`, () => {
      const clamped = clampTranscriptItem(item);
      assert.ok(isTranscriptItem(clamped), "the clamped item passes the guard");
      const state = chatState([userItem("before", "kept"), clamped, userItem("after", "kept too")]);
      assert.ok(isHostToChatMessage(state), "the state message that carries it passes");
      assert.doesNotThrow(() => JSON.stringify(state));
      assert.doesNotThrow(() => structuredClone(state));
      assert.equal(clamped.kind, item.kind, "the item is clamped, not replaced");
    });
  }

  it("without the clamp the guard refuses each of those state messages (what blanked the chat)", () => {
    for (const [what, item] of ODD.filter(([w]) => !w.includes("deep"))) assert.equal(isHostToChatMessage(chatState([userItem("before", "kept"), item])), false, what);
  });

  it("keeps what it can: a date string's time, a stable stand-in for an odd id, arguments under one key, deep values cut", () => {
    assert.equal(clampTranscriptItem(ODD[0]![1]).timestamp, Date.parse("2026-01-01T00:00:00Z"));
    const a = clampTranscriptItem(ODD[1]![1]);
    assert.equal(a.entryId, clampTranscriptItem(ODD[1]![1]).entryId);
    assert.notEqual(a.entryId, clampTranscriptItem(ODD[2]![1]).entryId);
    const call = (clampTranscriptItem(ODD[4]![1]) as typeof reply).parts[0] as { arguments: unknown };
    assert.deepEqual(call.arguments, { arguments: ["ls"] });
    const deepCall = (clampTranscriptItem(ODD[7]![1]) as typeof reply).parts[0] as { arguments: unknown };
    let depth = 0;
    for (let v: unknown = deepCall.arguments; typeof v === "object" && v !== null; v = Object.values(v)[0]) depth++;
    assert.equal(depth, MAX_NESTING);
  });

  describe("fuzzing the transcript builder with random entries", () => {
    /** A random value of any JSON type, odd ones often. */
    function anyValue(rng: Rng, depth = 0): unknown {
      switch (rng.int(depth > 3 ? 7 : 9)) {
        case 0: return null;
        case 1: return rng.int(3) === 0 ? -rng.int(1e9) : rng.int(1e13);
        case 2: return ["", "x", "\u001b]52;c;x\u0007", "é".repeat(rng.int(5)), "2026-01-01T00:00:00Z", "a".repeat(rng.int(2000))][rng.int(6)];
        case 3: return rng.int(2) === 0;
        case 4: return "text";
        case 5: return 1.5;
        case 6: return rng.int(20) === 0 ? deep(rng.int(3) * 1000) : "value";
        case 7: return Array.from({ length: rng.int(4) }, () => anyValue(rng, depth + 1));
        default: return Object.fromEntries(Array.from({ length: rng.int(4) }, (_, i) => [["type", "text", "id", "name", "arguments", `k${i}`][rng.int(6)]!, anyValue(rng, depth + 1)]));
      }
    }
    /** A field that is usually what the format says and sometimes anything at all. */
    const maybe = (rng: Rng, good: unknown): unknown => (rng.int(5) === 0 ? anyValue(rng) : good);

    function block(rng: Rng): unknown {
      const kinds = [
        () => ({ type: "text", text: maybe(rng, "some **text**") }),
        () => ({ type: "thinking", thinking: maybe(rng, "hmm"), redacted: maybe(rng, false) }),
        () => ({ type: "toolCall", id: maybe(rng, `call-${rng.int(5)}`), name: maybe(rng, "bash"), arguments: maybe(rng, { command: "ls" }) }),
        () => ({ type: "image", data: maybe(rng, "iVBORw0KGgo="), mimeType: maybe(rng, "image/png") }),
        () => anyValue(rng),
      ];
      return kinds[rng.int(kinds.length)]!();
    }

    function message(rng: Rng): unknown {
      const role = maybe(rng, ["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"][rng.int(7)]);
      const content = rng.int(4) === 0 ? maybe(rng, "plain text content") : Array.from({ length: rng.int(4) }, () => block(rng));
      return {
        role,
        content,
        timestamp: maybe(rng, 1_700_000_000_000 + rng.int(1e6)),
        provider: maybe(rng, "demo"),
        model: maybe(rng, "demo-model"),
        usage: maybe(rng, { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }),
        stopReason: maybe(rng, "stop"),
        errorMessage: maybe(rng, undefined),
        toolCallId: maybe(rng, `call-${rng.int(5)}`),
        toolName: maybe(rng, "bash"),
        isError: maybe(rng, false),
        details: maybe(rng, { diff: "+a" }),
        command: maybe(rng, "ls"),
        output: maybe(rng, "out"),
        exitCode: maybe(rng, 0),
        cancelled: maybe(rng, false),
        truncated: maybe(rng, false),
        excludeFromContext: maybe(rng, false),
        customType: maybe(rng, "note"),
        display: maybe(rng, true),
        summary: maybe(rng, "summary"),
        fromId: maybe(rng, "x"),
        tokensBefore: maybe(rng, 100),
      };
    }

    function entry(rng: Rng, i: number, parentId: string | null): SessionEntry {
      const type = maybe(rng, ["message", "message", "message", "compaction", "branch_summary", "custom_message", "custom", "label", "session_info", "model_change", "thinking_level_change"][rng.int(11)]);
      const id = rng.int(30) === 0 ? anyValue(rng) : `e${i}`;
      return {
        type,
        id,
        parentId,
        timestamp: maybe(rng, "2026-01-01T00:00:00.000Z"),
        message: maybe(rng, message(rng)),
        summary: maybe(rng, "## Goal\nfix it"),
        firstKeptEntryId: maybe(rng, "e0"),
        tokensBefore: maybe(rng, 1000),
        fromId: maybe(rng, "e0"),
        customType: maybe(rng, "ext"),
        content: maybe(rng, "custom content"),
        display: maybe(rng, true),
        details: maybe(rng, {}),
        data: maybe(rng, {}),
      } as unknown as SessionEntry;
    }

    it("never throws, and every item it makes passes the guards once clamped (300 random paths)", function () {
      this.timeout(60_000);
      for (let seed = 1; seed <= 300; seed++) {
        const rng = createRng(seed);
        const path: SessionEntry[] = [];
        for (let i = 0; i < 30; i++) path.push(entry(rng, i, i === 0 ? null : `e${i - 1}`));
        let items: TranscriptItem[] = [];
        assert.doesNotThrow(() => (items = buildTranscript(path)), `seed ${seed}`);
        const clamped = items.map(clampTranscriptItem);
        for (const item of clamped) assert.ok(isTranscriptItem(item), `seed ${seed}: ${JSON.stringify(item).slice(0, 300)}`);
        const state = chatState(clamped);
        assert.ok(isHostToChatMessage(state), `seed ${seed}`);
        assert.doesNotThrow(() => structuredClone(state), `seed ${seed}`);
      }
    });
  });
});
