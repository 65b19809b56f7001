/**
 * Cut points and turn starts, against the reference on random paths and budgets.
 */
import * as assert from "node:assert/strict";
import { findCutPoint, findTurnStartIndex } from "../../src/core/compaction/cut-point";
import type { SessionEntry } from "../../src/core/session/types";
import { loadReference, type PiReference } from "../support/reference";
import { createRng, generateReferenceSession } from "../support/random-session";

const BUDGETS = [0, 1, 10, 50, 200, 1000, 5000, 20000];
const T = "2025-01-01T00:00:00.000Z";

function userEntry(id: string, parentId: string | null, text: string): SessionEntry {
  return { type: "message", id, parentId, timestamp: T, message: { role: "user", content: text, timestamp: 0 } };
}

describe("compaction cut point", () => {
  let pi: PiReference;
  before(async () => {
    pi = await loadReference();
  });

  it("findCutPoint matches the reference on random paths, ranges and budgets", () => {
    const rng = createRng(7);
    let split = 0;
    let cuts = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 100, unknownRoles: true });
      for (let k = 0; k < 12; k++) {
        const path = manager.getBranch(rng.pick(ids));
        const start = rng.chance(0.7) ? 0 : rng.int(path.length);
        const end = rng.chance(0.7) ? path.length : rng.between(start, path.length);
        for (const budget of BUDGETS) {
          const ours = findCutPoint(path, start, end, budget);
          assert.deepStrictEqual(ours, pi.findCutPoint(path, start, end, budget), `seed ${seed} [${start},${end}) budget ${budget}`);
          if (ours.isSplitTurn) split++;
          if (ours.firstKeptEntryIndex > start) cuts++;
        }
      }
    }
    assert.ok(split > 50, `${split} split turns`);
    assert.ok(cuts > 500, `${cuts} real cuts`);
  });

  it("findTurnStartIndex matches the reference for every index", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const { manager } = generateReferenceSession(pi, { seed, entries: 60 });
      const path = manager.getBranch();
      for (let i = 0; i < path.length; i++) {
        for (const start of [0, Math.floor(i / 2), i]) {
          assert.equal(findTurnStartIndex(path, i, start), pi.findTurnStartIndex(path, i, start), `seed ${seed} i ${i}`);
        }
      }
    }
  });

  it("never cuts at a tool result, and keeps settings changes with the part they precede", () => {
    const entries: SessionEntry[] = [
      userEntry("u1", null, "x".repeat(400)),
      { type: "model_change", id: "m", parentId: "u1", timestamp: T, provider: "p", modelId: "q" },
      userEntry("u2", "m", "y".repeat(400)),
      {
        type: "message", id: "a", parentId: "u2", timestamp: T,
        message: {
          role: "assistant", content: [{ type: "toolCall", id: "c", name: "read", arguments: { path: "f" } }], api: "x", provider: "p", model: "q",
          usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
          stopReason: "toolUse", timestamp: 0,
        },
      },
      { type: "message", id: "r", parentId: "a", timestamp: T, message: { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "z".repeat(800) }], isError: false, timestamp: 0 } },
    ];
    // The tool result alone exceeds the budget; the nearest cut point at or after it does not exist,
    // so the reference falls back to the first cut point, and so must we.
    assert.deepStrictEqual(findCutPoint(entries, 0, entries.length, 100), { firstKeptEntryIndex: 0, turnStartIndex: -1, isSplitTurn: false });
    // The result and the call reach exactly 204: the cut lands on the assistant message, a split turn from u2.
    assert.deepStrictEqual(findCutPoint(entries, 0, entries.length, 204), { firstKeptEntryIndex: 3, turnStartIndex: 2, isSplitTurn: true });
    // Reaching the budget at u2, the cut moves back over the model change before it. Like the reference,
    // a cut that then starts at a non-user entry counts as splitting the turn before it (started by u1).
    assert.deepStrictEqual(findCutPoint(entries, 0, entries.length, 300), { firstKeptEntryIndex: 1, turnStartIndex: 0, isSplitTurn: true });
    for (const budget of [100, 204, 300]) {
      assert.deepStrictEqual(findCutPoint(entries, 0, entries.length, budget), pi.findCutPoint(entries, 0, entries.length, budget));
    }
  });
});
