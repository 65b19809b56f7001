/**
 * Token estimates and the compaction trigger, against the reference on random sessions.
 */
import * as assert from "node:assert/strict";
import { buildSessionContext } from "../../src/core/context/build-context";
import { messageFromEntry } from "../../src/core/context/messages";
import {
  calculateContextTokens,
  DEFAULT_COMPACTION_SETTINGS,
  estimateContextTokens,
  estimateTokens,
  getLastAssistantUsage,
  shouldCompact,
} from "../../src/core/compaction/tokens";
import type { AgentMessage } from "../../src/core/session/types";
import { loadReference, loadReferenceInternals, type PiInternals, type PiReference } from "../support/reference";
import { generateReferenceSession } from "../support/random-session";

describe("compaction token estimates", () => {
  let pi: PiReference;
  let internals: PiInternals;
  before(async () => {
    pi = await loadReference();
    internals = await loadReferenceInternals();
  });

  it("estimateTokens matches the reference for every message and derived message of random sessions", () => {
    const roles = new Set<string>();
    for (let seed = 1; seed <= 60; seed++) {
      const { manager } = generateReferenceSession(pi, { seed, entries: 80, unknownRoles: true });
      for (const entry of manager.getEntries()) {
        const message = messageFromEntry(entry);
        if (!message) continue;
        roles.add(message.role);
        assert.equal(estimateTokens(message), pi.estimateTokens(message), `seed ${seed} entry ${entry.id}`);
      }
    }
    for (const role of ["user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary"]) {
      assert.ok(roles.has(role), `generator produced no ${role}`);
    }
  });

  it("counts images as 4800 characters in tool results and custom messages, not in user messages", () => {
    const image = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
    const tool: AgentMessage = { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "abcd" }, image], isError: false, timestamp: 0 };
    const custom: AgentMessage = { role: "custom", customType: "x", content: [image], display: true, timestamp: 0 };
    const user: AgentMessage = { role: "user", content: [{ type: "text", text: "abcde" }, image], timestamp: 0 };
    assert.equal(estimateTokens(tool), 1201);
    assert.equal(estimateTokens(custom), 1200);
    assert.equal(estimateTokens(user), 2);
    for (const message of [tool, custom, user]) assert.equal(estimateTokens(message), pi.estimateTokens(message));
  });

  it("does not throw on malformed messages", () => {
    const broken = [
      { role: "assistant", content: [null, { type: "toolCall", name: "x" }] },
      { role: "bashExecution" },
      { role: "user", content: 42 },
      null,
    ] as unknown as AgentMessage[];
    for (const message of broken) assert.equal(typeof estimateTokens(message), "number");
  });

  it("estimateContextTokens and getLastAssistantUsage match the reference on random contexts and paths", () => {
    let withUsage = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const { manager, ids } = generateReferenceSession(pi, { seed, entries: 60 });
      for (const leaf of ids) {
        const messages = buildSessionContext(manager.getEntries(), leaf).messages;
        const ours = estimateContextTokens(messages);
        assert.deepStrictEqual(ours, internals.estimateContextTokens(messages), `seed ${seed} leaf ${leaf}`);
        if (ours.lastUsageIndex !== null) withUsage++;
        const path = manager.getBranch(leaf);
        assert.deepStrictEqual(getLastAssistantUsage(path), pi.getLastAssistantUsage(path));
      }
    }
    assert.ok(withUsage > 100, `${withUsage} contexts had usage`);
  });

  it("calculateContextTokens prefers totalTokens and falls back to the sum", () => {
    const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    const usages = [
      { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 0, cost },
      { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, totalTokens: 99, cost },
    ];
    assert.deepStrictEqual(usages.map(calculateContextTokens), [10, 99]);
    assert.deepStrictEqual(usages.map(calculateContextTokens), usages.map(pi.calculateContextTokens));
  });

  it("shouldCompact matches the reference around the threshold", () => {
    assert.deepStrictEqual({ ...DEFAULT_COMPACTION_SETTINGS }, pi.DEFAULT_COMPACTION_SETTINGS);
    for (const enabled of [true, false]) {
      for (const tokens of [0, 111615, 111616, 111617, 200000]) {
        const settings = { ...DEFAULT_COMPACTION_SETTINGS, enabled };
        assert.equal(shouldCompact(tokens, 128000, settings), pi.shouldCompact(tokens, 128000, settings), `${enabled} ${tokens}`);
      }
    }
    assert.equal(shouldCompact(111617, 128000, DEFAULT_COMPACTION_SETTINGS), true);
    assert.equal(shouldCompact(111616, 128000, DEFAULT_COMPACTION_SETTINGS), false);
  });
});
